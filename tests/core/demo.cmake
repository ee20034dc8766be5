# The demo publishers (rec_demo): a forked child publishes, the test reads it
# back through DCPSPublication and typed readers from the same IDL.
if(TARGET bagtop_demo_types)
  bagtop_test(test_demo_pub SOURCES test_demo_pub.c
    LIBS bagtop_core CycloneDDS::ddsc bagtop_demo_types LABELS integration TIMEOUT 60)
endif()
