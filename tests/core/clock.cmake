# rec_clock: /clock samples built from the spec (CDR, both byte orders,
# bad ones) written in-process on DDS domain 225 (loopback config).
bagtop_test(test_clock SOURCES test_clock.c LIBS bagtop_core CycloneDDS::ddsc
  LABELS integration TIMEOUT 30)
