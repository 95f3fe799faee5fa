// Input-aware tuning on the synthetic program (tune/synth.h), whose best configuration
// per shape is known by enumeration: the model trained on sampled shapes must choose,
// on shapes it never saw, configurations within 10% of the best.
#include "tune/isaac.h"
#include "tune/synth.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

using namespace funmem::tune;

namespace {

/// The noise-free best configuration of each shape, by enumeration.
std::vector<size_t> best_by_enumeration(const SynthProgram& p, const std::vector<Shape>& shapes) {
  std::vector<size_t> best;
  for (const Shape& s : shapes) {
    size_t b = 0;
    for (size_t c = 1; c < p.space.configs.size(); ++c)
      if (p.cost(s, c) < p.cost(s, b)) b = c;
    best.push_back(b);
  }
  return best;
}

} // namespace

TEST_CASE("shapes parse and sample deterministically", "[tune][isaac]") {
  std::string error;
  auto s = parse_shape("n=1024 m=8", &error);
  REQUIRE(s);
  CHECK(s->sizes == std::vector<std::pair<std::string, int64_t>>{{"n", 1024}, {"m", 8}});
  CHECK(shape_features(*s) == std::vector<double>{std::log2(1025.0), std::log2(9.0)});
  CHECK_FALSE(parse_shape("n=-3", &error));
  CHECK(error == "expected NAME=VALUE with a non-negative integer VALUE, got 'n=-3'");
  CHECK_FALSE(parse_shape("", &error));

  auto a = sample_shapes("n=64:4096 m=8", 20, 5, &error);
  auto b = sample_shapes("n=64:4096 m=8", 20, 5, &error);
  REQUIRE(a);
  REQUIRE(b);
  std::set<int64_t> ns;
  for (size_t k = 0; k < a->size(); ++k) {
    CHECK((*a)[k].spec == (*b)[k].spec);
    CHECK((*a)[k].sizes[0].second >= 64);
    CHECK((*a)[k].sizes[0].second <= 4096);
    CHECK((*a)[k].sizes[1].second == 8);
    ns.insert((*a)[k].sizes[0].second);
  }
  CHECK(ns.size() > 10);
  CHECK_FALSE(sample_shapes("n=9:3", 1, 1, &error));
  CHECK(error == "expected NAME=VALUE or NAME=LO:HI with 1 <= LO <= HI, got 'n=9:3'");
  CHECK_FALSE(sample_shapes("n=0:3", 1, 1, &error));
}

TEST_CASE("models fit a known function and cross-validate by group", "[tune][isaac]") {
  // y = x0 + 2 x1 on a grid: both models learn it; the MLP closely.
  Samples s;
  std::vector<size_t> group;
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 12; ++j) {
      s.x.push_back({i / 4.0, j / 4.0});
      s.y.push_back(i / 4.0 + 2 * j / 4.0);
      group.push_back(static_cast<size_t>(i));
    }
  auto mlp = make_mlp({});
  mlp->fit(s);
  CHECK(std::abs(mlp->predict({1.1, 2.1}) - 5.3) < 0.3);
  auto knn = make_knn(3);
  knn->fit(s);
  CHECK(std::abs(knn->predict({1.0, 2.0}) - 5.0) < 1e-6); // a training point is its own nearest
  CrossValidation cv = cross_validate([] { return make_mlp({}); }, s, 4, 1, &group);
  CHECK(cv.folds == 4);
  CHECK(cv.rmse < 0.5);
  CHECK(cv.mae <= cv.rmse);
  // Deterministic: the same seed, the same model.
  auto again = make_mlp({});
  again->fit(s);
  CHECK(again->predict({1.1, 2.1}) == mlp->predict({1.1, 2.1}));
}

TEST_CASE("the model recovers the synthetic program's best configurations on held-out shapes",
          "[tune][isaac]") {
  const SynthProgram p = synth_program(7);
  CHECK(p.space.illegal > 0); // tiles that do not fit are never run
  CHECK(p.space.configs.size() == p.space.grid - p.space.illegal);
  std::string error;
  const auto train = sample_shapes("n=1024:16777216 m=1:256", 30, 1, &error);
  const auto held = sample_shapes("n=1024:16777216 m=1:256", 20, 2, &error);
  REQUIRE(train);
  REQUIRE(held);
  const std::vector<size_t> best = best_by_enumeration(p, *held);
  // The best configuration depends on the shape.
  CHECK(std::set<size_t>(best.begin(), best.end()).size() >= 3);

  IsaacOptions o;
  o.samples_per_shape = 16;
  o.mlp.epochs = 150;
  IsaacResult r = isaac_train(p.space, *train, synth_measure(p, *train, 0.02, 3), o);
  CHECK(r.runs == 30 * 16);
  CHECK(r.failed == 0);
  CHECK(r.mlp_cv.rmse < 0.5); // log2 of ms: within a factor 1.41 on unseen shapes
  size_t within = 0;
  for (size_t k = 0; k < held->size(); ++k) {
    const size_t c = choose(*r.mlp, p.space, (*held)[k]);
    const double ratio = p.cost((*held)[k], c) / p.cost((*held)[k], best[k]);
    INFO((*held)[k].spec << ": chose " << p.space.configs[c].label << ", best "
                         << p.space.configs[best[k]].label << ", ratio " << ratio);
    CHECK(ratio < 1.5);
    within += ratio <= 1.10;
  }
  CHECK(within >= 18);

  // The same seed gives the same choices; the cache answers a shape once.
  o.folds = 0; // no cross-validation this time
  IsaacResult again = isaac_train(p.space, *train, synth_measure(p, *train, 0.02, 3), o);
  ChoiceCache cache(*r.mlp, p.space);
  for (const Shape& s : *held) {
    CHECK(choose(*again.mlp, p.space, s) == cache(s));
    CHECK(cache(s) == choose(*r.mlp, p.space, s));
  }
  CHECK(cache.entries().size() == held->size());
  const std::string file = shape_tuning_file(cache, p.space, *held, "MLP");
  CHECK(file.find("shape " + (*held)[0].spec + " : " + p.space.configs[cache((*held)[0])].flags +
                  "\n") != std::string::npos);
}

TEST_CASE("sampling the raw grid draws illegal points that sampling the legal space avoids",
          "[tune][isaac]") {
  const SynthProgram p = synth_program(7);
  std::string error;
  const auto train = sample_shapes("n=1024:16777216 m=1:256", 6, 1, &error);
  REQUIRE(train);
  IsaacOptions o;
  o.samples_per_shape = 16;
  o.sampling = Sampling::Grid;
  o.folds = 0;
  o.mlp.epochs = 10;
  IsaacResult g = isaac_train(p.space, *train, synth_measure(p, *train, 0.0, 3), o);
  CHECK(g.runs == 6 * 16);
  CHECK(g.illegal_draws > 0);
  CHECK(g.grid_draws == g.runs + g.illegal_draws);
  o.sampling = Sampling::Legal;
  IsaacResult l = isaac_train(p.space, *train, synth_measure(p, *train, 0.0, 3), o);
  CHECK(l.illegal_draws == 0);
  CHECK(l.runs == 6 * 16);
}
