// Filled by the Crypto work.
