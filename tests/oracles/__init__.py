"""Independent implementations that tests hold the shipped code against."""
