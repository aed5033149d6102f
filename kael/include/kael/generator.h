#pragma once
/// \file
/// \brief kael::Generator: a random stream of its own, for code that must not share the
/// global one (chapter 13).
///
/// Every random function draws from one global generator (chapter 02), which is what a
/// training script wants: one manual_seed makes the whole run repeatable. A server is
/// different. It samples for many requests at once, and a request that asks for seed 7
/// must get the text that manual_seed(7) and generate() give, whatever other requests run
/// beside it. Each request therefore carries a Generator of its own, and a GeneratorGuard
/// lends it to the random functions for the few calls that sample its next token.

#include <cstdint>
#include <random>

namespace kael {

/// The global generator's engine (std::mt19937_64) with a state of its own. A Generator
/// seeded with s draws exactly the numbers the global generator draws after
/// manual_seed(s). It has no lock: one thread uses it at a time.
class Generator {
public:
    /// A generator seeded with `seed`, as manual_seed(seed) seeds the global one.
    explicit Generator(std::uint64_t seed) : engine_(seed) {}

    /// Starts the stream again from `seed`.
    void manual_seed(std::uint64_t seed) { engine_.seed(seed); }

private:
    friend class GeneratorGuard;
    std::mt19937_64 engine_;
};

/// While a guard lives, every random function called on its thread (rand, randn, randint,
/// randperm, bernoulli, multinomial, and so sampling) draws from `generator` instead of
/// the global generator; other threads are not affected. Guards nest: the inner one wins,
/// and the outer one is restored when it ends.
class GeneratorGuard {
public:
    /// Lends `generator`, which must outlive the guard, to this thread's random functions.
    explicit GeneratorGuard(Generator& generator) noexcept;
    /// Gives the thread back the generator it used before.
    ~GeneratorGuard();
    GeneratorGuard(const GeneratorGuard&) = delete;
    GeneratorGuard& operator=(const GeneratorGuard&) = delete;

private:
    std::mt19937_64* previous_;
};

}  // namespace kael
