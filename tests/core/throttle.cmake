# --throttle: parsing the rules, which topic each names, the bucket.
bagtop_test(test_throttle SOURCES test_throttle.c LIBS bagtop_core LABELS unit TIMEOUT 30)
# --snapshot-window / --snapshot-topic-cache: parsing, checks, each topic's
# window.
bagtop_test(test_snapwin SOURCES test_snapwin.c LIBS bagtop_core LABELS unit TIMEOUT 30)
