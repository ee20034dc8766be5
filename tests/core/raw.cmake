# rec_raw: byte-exact raw capture against tpub's oracle and ddsperf
# (integration: real DDS on loopback, child processes).
bagtop_test(test_raw SOURCES test_raw.c LIBS bagtop_core CycloneDDS::ddsc tpub_types
  LABELS integration TIMEOUT 60)
add_dependencies(test_raw tpub)
# Under -fsanitize=thread, TSAN_OPTIONS comes from BAGTOP_TEST_ENV (tests/CMakeLists.txt).
