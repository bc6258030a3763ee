# Included by llama.cpp's CMake after each project() call (CMAKE_PROJECT_INCLUDE, set in
# .cargo/config.toml and passed down by llama-cpp-sys-2, which forwards every CMAKE_* variable).
#
# llama-cpp-2 0.1.160 depends on llama-cpp-sys-2 with its default features, so the sys crate's
# `common` feature is always on and it asks CMake for LLAMA_BUILD_COMMON=ON: llama.cpp's
# `common` library (argument parsing, chat parsers, Jinja, an HTTP client and more) and the
# vendored cpp-httplib. alpha3 uses none of it (it builds llama-cpp-2 without its `common`
# feature, so nothing refers to the wrapper that would need it), and it is over half of
# llama.cpp's compile time: 212 of 384 CPU-seconds on this machine (issue 31, first report).
# llama.cpp's own CMakeLists keeps `common` optional; this turns it off before its option() is
# read. The sys crate links `llama-common` only when CMake built it.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library (off: alpha3 uses none of it)" FORCE)
