"""One publisher per GitHub surface: sticky comment, commit status, check run."""
