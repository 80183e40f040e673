// integer_guess through the engine's peak request: a known integer shift is found for every
// point, with the ZNCC of the match, the window clamped into the image near the border, and the
// variant that ran reported; the maximum's sub-pixel offsets (kGuessFit) bring a fractional
// shift closer, and are 0 where the maximum lies on the search range's border.
#include "core/dic/initial_guess.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/synth/speckle.hpp"
#include "tests/support/cpu_registry.hpp"

namespace xcorr::dic {
namespace {

TEST(IntegerGuess, FindsAnIntegerShiftForEveryPoint) {
  synth::SpeckleOptions o;
  o.rows = 120;
  o.cols = 110;
  o.seed = 9;
  const auto ref = synth::render_speckle(o, 0, 0);
  const auto def = synth::render_speckle(o, -3, 4);  // content moves up 3, right 4
  std::vector<GuessRequest> requests;
  for (Index y = 20; y <= 100; y += 20) {
    for (Index x = 20; x <= 90; x += 35) requests.push_back({x, y, 0, 0});
  }
  requests.push_back({15, 15, 0, 0});  // window clamped into the image at the top-left
  for (const char* method : {"cpu_direct", "cpu_fft"}) {
    const auto g = integer_guess(testing::cpu_registry(), method, Accuracy::fast, ref[0], def[0],
                                 requests, 21, 6);
    ASSERT_TRUE(g.is_ok()) << g.status().message();
    EXPECT_EQ(g.value().variant, method);
    ASSERT_EQ(g.value().guesses.size(), requests.size());
    for (std::size_t k = 0; k < requests.size(); ++k) {
      EXPECT_EQ(g.value().guesses[k].u, 4) << method << " point " << k;
      EXPECT_EQ(g.value().guesses[k].v, -3) << method << " point " << k;
      EXPECT_GT(g.value().guesses[k].zncc, 0.99) << method << " point " << k;
    }
  }
}

TEST(IntegerGuess, TheFitOfTheMaximumMovesTheStartTowardsAFractionalShift) {
  synth::SpeckleOptions o;
  o.rows = 120;
  o.cols = 110;
  o.seed = 4;
  o.noise_sigma = 100;
  const double dy = -2.35, dx = 3.6;  // rounds to (4, -2), 0.4 and 0.35 px away
  const auto ref = synth::render_speckle(o, 0, 0);
  const auto def = synth::render_speckle(o, dy, dx);
  std::vector<GuessRequest> requests;
  for (Index y = 20; y <= 100; y += 20) {
    for (Index x = 20; x <= 90; x += 35) requests.push_back({x, y, 0, 0});
  }
  for (const char* method : {"cpu_direct", "cpu_fft"}) {
    for (const int radius : {6, 0}) {
      const auto g = integer_guess(testing::cpu_registry(), method, Accuracy::fast, ref[0], def[0],
                                   requests, 21, radius);
      ASSERT_TRUE(g.is_ok()) << g.status().message();
      for (std::size_t k = 0; k < requests.size(); ++k) {
        const IntegerGuess& q = g.value().guesses[k];
        SCOPED_TRACE(std::string(method) + " radius " + std::to_string(radius) + " point " +
                     std::to_string(k));
        if (radius == 0) {  // one displacement: the maximum is on the border, not refined
          EXPECT_EQ(q.u, 0);
          EXPECT_EQ(q.v, 0);
          EXPECT_EQ(q.du, 0.0);
          EXPECT_EQ(q.dv, 0.0);
          continue;
        }
        EXPECT_EQ(q.u, 4);
        EXPECT_EQ(q.v, -2);
        EXPECT_NEAR(static_cast<double>(q.u) + q.du, dx, 0.15);
        EXPECT_NEAR(static_cast<double>(q.v) + q.dv, dy, 0.15);
      }
    }
  }
}

TEST(IntegerGuess, APredictionMovesTheSearch) {
  synth::SpeckleOptions o;
  o.rows = 100;
  o.cols = 100;
  const auto ref = synth::render_speckle(o, 0, 0);
  const auto def = synth::render_speckle(o, 9, 0);  // beyond a radius of 4 without prediction
  const std::vector<GuessRequest> r = {{50, 40, 0, 9}};
  const auto g =
      integer_guess(testing::cpu_registry(), "auto", Accuracy::fast, ref[0], def[0], r, 21, 4);
  ASSERT_TRUE(g.is_ok()) << g.status().message();
  EXPECT_EQ(g.value().guesses[0].v, 9);
  EXPECT_EQ(g.value().guesses[0].u, 0);
}

// accuracy exact: auto picks a direct variant even where the FFT is modelled faster (a large
// search window), and an FFT variant named explicitly is refused with the reason.
TEST(IntegerGuess, ExactAccuracyPicksADirectVariantAndRefusesTheFft) {
  synth::SpeckleOptions o;
  o.rows = 200;
  o.cols = 200;
  const auto ref = synth::render_speckle(o, 0, 0);
  const auto def = synth::render_speckle(o, 5, -7);
  const std::vector<GuessRequest> r = {{100, 100, 0, 0}, {80, 120, 0, 0}};
  const auto fast =
      integer_guess(testing::cpu_registry(), "auto", Accuracy::fast, ref[0], def[0], r, 41, 40);
  ASSERT_TRUE(fast.is_ok()) << fast.status().message();
  EXPECT_EQ(fast.value().variant, "cpu_fft") << "the premise: auto picks the FFT here";
  const auto exact =
      integer_guess(testing::cpu_registry(), "auto", Accuracy::exact, ref[0], def[0], r, 41, 40);
  ASSERT_TRUE(exact.is_ok()) << exact.status().message();
  EXPECT_EQ(exact.value().variant, "cpu_direct");
  for (const IntegerGuess& g : exact.value().guesses) {
    EXPECT_EQ(g.v, 5);
    EXPECT_EQ(g.u, -7);
  }
  const auto refused =
      integer_guess(testing::cpu_registry(), "cpu_fft", Accuracy::exact, ref[0], def[0], r, 41, 40);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("does not meet accuracy exact"), std::string::npos)
      << refused.status().message();
}

// One method for a whole frame: auto resolved as integer_guess's auto resolves it for one full
// engine call, the guess window reduced to fit the images, and a configured method kept as is.
TEST(IntegerGuess, AFramesMethodIsWhatAutoPicksForOneFullCall) {
  const Registry& r = testing::cpu_registry();
  for (const Accuracy a : {Accuracy::fast, Accuracy::exact}) {
    auto m = frame_guess_method(r, "auto", a, 200, 200, 41, 40, 2, kGuessCallPoints);
    ASSERT_TRUE(m.is_ok()) << m.status().message();
    auto chosen = choose_variant(r, guess_shape(2, 41, guess_window(41, 40, 200, 200), a), "auto");
    ASSERT_TRUE(chosen.is_ok());
    EXPECT_EQ(m.value(), chosen.value()->info().name);
    EXPECT_EQ(m.value(), a == Accuracy::fast ? "cpu_fft" : "cpu_direct");
  }
  EXPECT_EQ(guess_window(41, 40, 200, 200), 121);         // 41 + 2 * 40
  EXPECT_EQ(guess_window(41, 40, 100, 90), 41 + 2 * 24);  // (90 - 41) / 2 = 24
  auto kept = frame_guess_method(r, "gpu_x:a=1", Accuracy::fast, 200, 200, 41, 40, 2, 8192);
  ASSERT_TRUE(kept.is_ok());
  EXPECT_EQ(kept.value(), "gpu_x:a=1");
  EXPECT_FALSE(frame_guess_method(r, "no_such", Accuracy::fast, 200, 200, 41, 40, 2, 8192).is_ok());
}

}  // namespace
}  // namespace xcorr::dic
