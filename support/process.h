// Running a command as a process: the one place the tools, the CUDA checks, the tuner,
// the race detector and the benchmarks start compilers and generated programs.
#pragma once

#include <string>

namespace funmem {

/// Runs `command` with /bin/sh, its standard output and error captured (into `out` and
/// `err` when given, through temporary files). Returns the exit status, 128 + the
/// signal for a process that was killed, or -1 when the shell could not be started.
int run_command(const std::string& command, std::string* out = nullptr, std::string* err = nullptr);

/// Precompiles the header `header` into `header`.gch with `compiler` (the compiler and
/// its flags) unless that exists: into a private file renamed over the final name, so a
/// concurrent build sees either no .gch or a complete one. A failure only costs speed
/// (the compiler then reads the header); the compiler's messages are dropped.
void precompile_header(const std::string& header, const std::string& compiler);

/// The exit status of a std::system() result, as run_command returns it.
int exit_status(int system_result);

} // namespace funmem
