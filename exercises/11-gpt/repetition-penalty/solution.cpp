// Reference solution of exercise 11.1.
#include <cstddef>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {

std::vector<double> apply_repetition_penalty(const std::vector<double>& logits,
                                             const std::vector<std::int64_t>& generated, double penalty) {
    // NaN compares false with everything, so `penalty > 0` refuses it too.
    KAEL_CHECK_VALUE(penalty > 0,
                     "the repetition penalty must be greater than 0 (1 changes nothing), got " << penalty);
    const auto vocabulary = static_cast<std::int64_t>(logits.size());

    // Which tokens occur, each marked once: a token seen three times is still one token,
    // and is penalised once below.
    std::vector<bool> seen(logits.size(), false);
    for (const std::int64_t id : generated) {
        KAEL_CHECK_INDEX(id >= 0 && id < vocabulary,
                         "token id " << id << " is outside the vocabulary [0, " << vocabulary << ")");
        seen[static_cast<std::size_t>(id)] = true;
    }

    // Dividing a negative logit by a penalty above 1 would move it towards 0 and make the
    // token more likely; multiplying it moves it away. 0 stays 0 either way, and -inf (a
    // masked token) stays -inf.
    std::vector<double> out = logits;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (seen[i]) {
            out[i] = out[i] < 0 ? out[i] * penalty : out[i] / penalty;
        }
    }
    return out;
}

}  // namespace exercise
