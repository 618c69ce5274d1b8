"""What runs on a borrowed machine (a GPU lent for a while, a long CPU leg): carrying the
data there and running one leg of a long training run."""
