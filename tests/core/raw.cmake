# rec_raw: byte-exact raw capture against tpub's oracle and ddsperf
# (integration: real DDS on loopback, child processes).
bagtop_test(test_raw SOURCES test_raw.c LIBS bagtop_core CycloneDDS::ddsc tpub_types
  LABELS integration TIMEOUT 60)
add_dependencies(test_raw tpub)
# Under -fsanitize=thread: Debian's libddsc is not instrumented, so TSan
# cannot see its atomics and reports races between Cyclone's own threads
# (mutexes in freshly published objects, recycled receive buffers, gc).
# ignore_noninstrumented_modules drops reports from accesses made inside
# uninstrumented code; races in our code are still reported (checked with a
# deliberate race in rec_raw.c). tpub inherits the environment.
set_property(TEST test_raw APPEND PROPERTY ENVIRONMENT
  "TSAN_OPTIONS=ignore_noninstrumented_modules=1")
