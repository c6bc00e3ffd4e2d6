// System.
