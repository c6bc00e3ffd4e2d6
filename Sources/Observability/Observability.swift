// Filled by the Observability work.
