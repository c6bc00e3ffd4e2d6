// Filled by the Configuration work.
