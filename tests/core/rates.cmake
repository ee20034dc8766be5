# rec_rates: the one window every rate is shown over.
bagtop_test(test_rates SOURCES test_rates.c LIBS bagtop_core LABELS unit TIMEOUT 30)
