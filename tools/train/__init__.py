"""Training the networks the reader ships (`vision/models/`), and storing their weights."""
