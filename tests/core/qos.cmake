# QoS adaptation to publishers, with an override profile (rec_qos).
bagtop_test(test_qos SOURCES test_qos.c LIBS bagtop_core LABELS unit TIMEOUT 30)
