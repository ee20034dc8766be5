# Snapshot mode and repeat-transient-local: the circular cache (real
# threads), the TL store and the split / snapshot merge rules. No DDS.
bagtop_test(test_snap SOURCES test_snap.c core_fixture.c LIBS bagtop_core
  LABELS unit TIMEOUT 120)
bagtop_test(test_tl SOURCES test_tl.c core_fixture.c LIBS bagtop_core
  LABELS unit TIMEOUT 120)
bagtop_test(test_repeat SOURCES test_repeat.c core_fixture.c LIBS bagtop_core
  LABELS unit TIMEOUT 120)
