# Compile flags every bagtop target links: warnings (as errors unless
# BAGTOP_WERROR is OFF), feature macros, and the optional sanitizers.
add_library(bagtop_flags INTERFACE)
target_compile_options(bagtop_flags INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wstrict-prototypes -Wformat=2
  -Wmissing-prototypes -Wno-sign-conversion
  # error and log lines are cut at a fixed length on purpose (GCC's warning)
  $<$<C_COMPILER_ID:GNU>:-Wno-format-truncation>)
target_compile_definitions(bagtop_flags INTERFACE _GNU_SOURCE)
if(BAGTOP_WERROR)
  target_compile_options(bagtop_flags INTERFACE -Werror)
endif()
if(BAGTOP_SANITIZE)
  target_compile_options(bagtop_flags INTERFACE
    -fsanitize=${BAGTOP_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(bagtop_flags INTERFACE -fsanitize=${BAGTOP_SANITIZE})
endif()
find_package(Threads REQUIRED)
target_link_libraries(bagtop_flags INTERFACE Threads::Threads)
