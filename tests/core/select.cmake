# Topic selection (rec_select) and QoS adaptation / override files (rec_qos).
bagtop_test(test_select SOURCES test_select.c LIBS bagtop_core LABELS unit TIMEOUT 30)
bagtop_test(test_qos SOURCES test_qos.c LIBS bagtop_core LABELS unit TIMEOUT 30)
