// Running a command as a process (see process.h).
#include "support/process.h"

#include "support/files.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>

namespace funmem {

namespace fs = std::filesystem;

int exit_status(int rc) {
  if (rc == -1) return -1;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

int run_command(const std::string& command, std::string* out, std::string* err) {
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path();
  const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const fs::path o = dir / ("funmem-cmd-" + tag + ".out"), e = dir / ("funmem-cmd-" + tag + ".err");
  const std::string to_out = out ? shell_quote(o.string()) : std::string("/dev/null");
  const std::string to_err = err ? shell_quote(e.string()) : std::string("/dev/null");
  const int rc = std::system(("{ " + command + "\n} > " + to_out + " 2> " + to_err).c_str());
  if (out) *out = read_file(o.string());
  if (err) *err = read_file(e.string());
  std::error_code ec;
  fs::remove(o, ec);
  fs::remove(e, ec);
  return exit_status(rc);
}

void precompile_header(const std::string& header, const std::string& compiler) {
  std::error_code ec;
  const fs::path gch = header + ".gch";
  if (fs::exists(gch, ec) || !fs::exists(header, ec)) return;
  static std::atomic<int> counter{0};
  fs::path tmp = gch;
  tmp += "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp";
  if (run_command(compiler + " -x c++-header " + shell_quote(header) + " -o " +
                      shell_quote(tmp.string()),
                  nullptr, nullptr) == 0)
    fs::rename(tmp, gch, ec);
  fs::remove(tmp, ec);
}

} // namespace funmem
