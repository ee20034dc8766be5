# --throttle: parsing the rules, which topic each names, the bucket.
bagtop_test(test_throttle SOURCES test_throttle.c LIBS bagtop_core LABELS unit TIMEOUT 30)
