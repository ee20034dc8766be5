# The message cache and the consumer thread (real threads, real sqlite files).
bagtop_test(test_cache SOURCES test_cache.c core_fixture.c LIBS bagtop_core
  LABELS unit TIMEOUT 120)
bagtop_test(test_consumer SOURCES test_consumer.c LIBS bagtop_core bagtop_testbag LABELS unit
  TIMEOUT 120)
