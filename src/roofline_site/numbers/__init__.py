"""Number tokens in prose and the tables built from them."""
