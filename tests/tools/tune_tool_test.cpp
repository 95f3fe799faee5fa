// funmem-tune as a command and the harness's threshold flags: tuning a corpus program,
// the tuning file, resuming from the log, bad threshold input; the program runner's
// parsing, failures and time-outs.
#include "tests/test_util.h"
#include "tune/program_runner.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace {

using Run = funmem::test::CommandResult;
namespace fs = std::filesystem;
using namespace funmem::tune;

std::string out_dir() {
  fs::path d = fs::temp_directory_path() / ("funmem-tune-tool-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d.string();
}

std::string corpus(const std::string& f) {
  return std::string(FUNMEM_SOURCE_DIR) + "/corpus/" + f;
}

} // namespace

TEST_CASE("funmem-tune tunes a corpus program, writes its tuning file and resumes from its log",
          "[tools][tune]") {
  std::string dir = out_dir();
  fs::copy_file(corpus("tune/mapscan.fun"), dir + "/mapscan.fun",
                fs::copy_options::overwrite_existing);
  const std::string cmd = std::string(FUNMEM_TUNE_BIN) + " " + dir +
                          "/mapscan.fun --repeats 1 --datasets 'n=2 m=3000' 'n=3000 m=2' "
                          "'n=40 m=64'";
  Run r = funmem::test::run_command(cmd + " --compare");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("tuning " + dir + "/mapscan.fun: 2 threshold(s), 3 data set(s)") !=
        std::string::npos);
  CHECK(r.out.find("data set n=2 m=3000: ") != std::string::npos);
  CHECK(r.out.find("mapscan.suff_outer_par_0: P in {2}") != std::string::npos);
  CHECK(r.out.find("funmem-tune: [") != std::string::npos);           // progress lines
  CHECK(r.out.find("tuned (kernels launched)") != std::string::npos); // no timing asserted
  std::string tuning = funmem::test::slurp(dir + "/mapscan.fun.tuning");
  CHECK(tuning.find("\nmapscan.suff_outer_par_0=") != std::string::npos);
  CHECK(tuning.find("\nmapscan.suff_intra_par_0=") != std::string::npos);
  CHECK(fs::exists(dir + "/mapscan.fun.tune-log"));

  // Resuming replays every run: nothing is executed and the result is the same.
  Run again = funmem::test::run_command(cmd + " --resume --quiet");
  INFO(again.out);
  CHECK(again.code == 0);
  CHECK(again.out.find("runs: 0 executed") != std::string::npos);
  CHECK(funmem::test::slurp(dir + "/mapscan.fun.tuning") == tuning);

  // The generated program reads the tuning file and rejects bad threshold input.
  const std::string exe = dir + "/mapscan.fun.tune/mapscan.fun.cu.emu";
  const std::string in = dir + "/mapscan.fun.tune/dataset-0.in";
  Run tree = funmem::test::run_command(exe + " --tuning-tree");
  CHECK(tree.code == 0);
  CHECK(tree.out.find("threshold mapscan.suff_intra_par_0 parent mapscan.suff_outer_par_0") !=
        std::string::npos);
  Run logged = funmem::test::run_command(exe + " " + in + " --no-output --log-thresholds " +
                                         "--threshold '*=inf'");
  CHECK(logged.code == 0);
  CHECK(logged.out.find("threshold mapscan.suff_outer_par_0 2 1") != std::string::npos);
  CHECK(logged.out.find("threshold mapscan.suff_intra_par_0 3000") == std::string::npos);
  Run bad = funmem::test::run_command(exe + " " + in + " --threshold mapscan.nope=3");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("no threshold named 'mapscan.nope'") != std::string::npos);
  Run neg = funmem::test::run_command(exe + " " + in + " --threshold '*=-4'");
  CHECK(neg.code == 1);
  CHECK(neg.out.find("bad threshold value '-4'") != std::string::npos);
  std::ofstream(dir + "/bad.tuning") << "# comment\nmapscan.suff_outer_par_0 = 12x\n";
  Run file = funmem::test::run_command(exe + " " + in + " --tuning " + dir + "/bad.tuning");
  CHECK(file.code == 1);
  CHECK(file.out.find("bad.tuning:2: bad threshold value '12x'") != std::string::npos);
  Run env = funmem::test::run_command("FUNMEM_TUNING=" + dir + "/mapscan.fun.tuning " + exe + " " +
                                      in + " --no-output");
  CHECK(env.code == 0);

  // Bad data sets and programs without thresholds.
  Run nosize = funmem::test::run_command(std::string(FUNMEM_TUNE_BIN) + " " + dir +
                                         "/mapscan.fun --datasets 'n=2'");
  CHECK(nosize.code == 2);
  CHECK(nosize.out.find("--datasets 'n=2': error:") != std::string::npos);
  fs::copy_file(corpus("passes/rowsums.fun"), dir + "/rowsums.fun",
                fs::copy_options::overwrite_existing);
  Run none = funmem::test::run_command(std::string(FUNMEM_TUNE_BIN) + " " + dir +
                                       "/rowsums.fun --datasets 'n=2 m=3'");
  CHECK(none.code == 0);
  CHECK(none.out.find("nothing to tune") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("the program runner parses times and comparisons, and times out", "[tune]") {
  Forest f;
  f.thresholds.push_back({"p.a", -1, 10, ""});
  RunResult ok = parse_run_output("threshold p.a 5 2\nthreshold p.b 1 1\ntime: run 12.5 ms, 0 "
                                  "bytes allocated, peak 0 bytes\n",
                                  0, f);
  CHECK(ok.status == RunResult::Status::Ok);
  CHECK(ok.ms == 12.5);
  CHECK(ok.comparisons.at(0).at(5) == 2);
  RunResult failed = parse_run_output("p.fun:3:4: error: resource: out of memory\n", 1, f);
  CHECK(failed.status == RunResult::Status::Failed);
  CHECK(failed.error.find("out of memory") != std::string::npos);
  CHECK(parse_run_output("", 137, f).status == RunResult::Status::Timeout);
  CHECK(parse_run_output("no timing\n", 0, f).status == RunResult::Status::Failed);

  std::string dir = out_dir();
  std::string slow = dir + "/slow.sh";
  std::ofstream(slow) << "#!/bin/sh\nsleep 10\n";
  fs::permissions(slow, fs::perms::owner_all);
  ProgramRunner r(slow, {{"d", "/dev/null"}}, f, 0.3, "");
  RunResult t = r.run(0, {kInf});
  CHECK(t.status == RunResult::Status::Timeout);
  fs::remove_all(dir);
}

TEST_CASE("funmem-tune --model learns over shapes, writes shape lines the program reads, resumes",
          "[tools][tune][isaac]") {
  std::string dir = out_dir() + "/model";
  fs::create_directories(dir);
  fs::copy_file(corpus("cpk/jacobi-1d.fun"), dir + "/jacobi-1d.fun",
                fs::copy_options::overwrite_existing);
  const std::string cmd = std::string(FUNMEM_TUNE_BIN) + " " + dir +
                          "/jacobi-1d.fun --model --shapes 'n=1000:20000 steps=2' --train 3 "
                          "--held-out 2 --samples 3 --repeats 1 --query 'n=64 steps=2'";
  Run r = funmem::test::run_command(cmd);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("space: ") != std::string::npos);
  CHECK(r.out.find("0 illegal (no leaf holds)") != std::string::npos);
  CHECK(r.out.find("training: 3 shape(s), 9 measurement(s) of 1 run(s), 0 failed") !=
        std::string::npos);
  CHECK(r.out.find("cross-validation by shape (3 folds)") != std::string::npos);
  CHECK(r.out.find("| exhaustive search | ") != std::string::npos);
  CHECK(r.out.find("| model: MLP 64-64 x5 | 9 | ") != std::string::npos);
  CHECK(r.out.find("| program defaults | 0 | ") != std::string::npos);
  CHECK(r.out.find("funmem-tune: [measurement 1] ") != std::string::npos);
  const std::string tuning = funmem::test::slurp(dir + "/jacobi-1d.fun.tuning");
  CHECK(tuning.find("\nshape n=64 steps=2 : --param B=") != std::string::npos);
  CHECK(fs::exists(dir + "/jacobi-1d.fun.isaac-log"));

  // Resuming replays every run: nothing is executed, the same choices are written.
  Run again = funmem::test::run_command(cmd + " --resume --quiet");
  INFO(again.out);
  CHECK(again.code == 0);
  CHECK(again.out.find("runs: 0 executed") != std::string::npos);
  CHECK(funmem::test::slurp(dir + "/jacobi-1d.fun.tuning") == tuning);

  // The program takes the nearest shape line's flags, under the command line's.
  const std::string exe = dir + "/jacobi-1d.fun.tune/jacobi-1d.fun.cu.emu";
  std::ofstream(dir + "/two.tuning") << "# two shapes\nshape n=20 steps=2 : --param B=32 "
                                        "--limit Z=0\nshape n=5000 steps=2 : --param B=64\n";
  std::ofstream(dir + "/small.in") << "scalar n i64 24\nscalar steps i64 2\n"
                                      "mem a0_mem 24 random f64 1\n";
  std::ofstream(dir + "/big.in") << "scalar n i64 5000\nscalar steps i64 2\n"
                                    "mem a0_mem 5000 random f64 1\n";
  const std::string flags = " --no-output --time --tuning " + dir + "/two.tuning";
  Run small = funmem::test::run_command(exe + " " + dir + "/small.in" + flags);
  CHECK(small.code == 0);
  CHECK(small.out.find("time: shape n=20 steps=2 (nearest)") != std::string::npos);
  CHECK(small.out.find("time: kernel fm_kernel_0_g ") != std::string::npos); // Z=0: no tile
  Run big = funmem::test::run_command(exe + " " + dir + "/big.in" + flags);
  CHECK(big.out.find("time: shape n=5000 steps=2 (equal)") != std::string::npos);
  CHECK(big.out.find("time: kernel fm_kernel_0_gc ") != std::string::npos);
  Run over = funmem::test::run_command(exe + " " + dir + "/small.in" + flags + " --limit Z=49152");
  CHECK(over.out.find("time: kernel fm_kernel_0_gc ") != std::string::npos); // the flag wins
  std::ofstream(dir + "/bad.tuning") << "shape n=5 : --param B=0\n";
  Run bad =
      funmem::test::run_command(exe + " " + dir + "/small.in --tuning " + dir + "/bad.tuning");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("bad.tuning:1: expected NAME=VALUE with NAME one of B B0 B1 s") !=
        std::string::npos);
  std::ofstream(dir + "/bad.tuning") << "shape n=5 --param B=3\n";
  bad = funmem::test::run_command(exe + " " + dir + "/small.in --tuning " + dir + "/bad.tuning");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("bad.tuning:1: expected `shape NAME=VALUE ... : FLAGS`") != std::string::npos);

  // Usage errors.
  Run no_shapes = funmem::test::run_command(std::string(FUNMEM_TUNE_BIN) + " " + dir +
                                            "/jacobi-1d.fun --model");
  CHECK(no_shapes.code == 2);
  CHECK(no_shapes.out.find("--shapes goes with --model, and --model needs it") !=
        std::string::npos);
  Run bad_range = funmem::test::run_command(std::string(FUNMEM_TUNE_BIN) + " " + dir +
                                            "/jacobi-1d.fun --model --shapes 'n=9:3' --quiet");
  CHECK(bad_range.code == 1);
  CHECK(bad_range.out.find("--shapes: expected NAME=VALUE or NAME=LO:HI") != std::string::npos);
}
