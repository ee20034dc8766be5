# The recorder's commands (rec_cmd): a snapshot's parameters through a
# command, snapshot names. No DDS.
bagtop_test(test_cmd SOURCES test_cmd.c LIBS bagtop_core LABELS unit TIMEOUT 30)
