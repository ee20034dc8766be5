# The recorder's command API (toggle, pause) with tpub processes (DDS).
bagtop_test(test_recorder_cmd SOURCES test_recorder_cmd.c
  LIBS bagtop_core bagtop_rec_harness LABELS integration TIMEOUT 60)
