// Reference solution of exercise 13.1.
#include <cstddef>
#include <string>

#include "exercise.h"
#include "kael/broadcast.h"
#include "kael/error.h"
#include "kael/shape.h"

namespace exercise {

namespace {

bool is_matrix_product(const std::string& name) { return name == "matmul" || name == "mm" || name == "bmm"; }

}  // namespace

std::int64_t matmul_flops(const kael::ProfileEvent& event) {
    if (!is_matrix_product(event.name)) {
        return 0;
    }
    KAEL_CHECK_VALUE(event.shapes.size() >= 2,
                     event.name << ": a matrix product has two operands, the event records " << event.shapes.size());
    kael::Shape a = event.shapes[0];
    kael::Shape b = event.shapes[1];
    KAEL_CHECK_VALUE(!a.empty() && !b.empty(), event.name << ": shapes " << kael::to_string(a) << " and "
                                                          << kael::to_string(b) << " include a 0-d operand");
    // A vector is one row on the left and one column on the right, as matmul treats it.
    if (a.size() == 1) {
        a.insert(a.begin(), 1);
    }
    if (b.size() == 1) {
        b.push_back(1);
    }
    const std::int64_t m = a[a.size() - 2];
    const std::int64_t k = a[a.size() - 1];
    const std::int64_t n = b[b.size() - 1];
    KAEL_CHECK_VALUE(k == b[b.size() - 2], event.name << ": shapes " << kael::to_string(event.shapes[0]) << " and "
                                                      << kael::to_string(event.shapes[1]) << " cannot be multiplied");
    // The batch dimensions broadcast (a ValueError when they cannot); every matrix of the
    // broadcast batch is one product.
    const kael::Shape batch = kael::broadcast_shapes(kael::Shape(a.begin(), a.end() - 2),
                                                     kael::Shape(b.begin(), b.end() - 2));
    // One multiply and one add for each of the M * N outputs and each of the K inner steps.
    return 2 * kael::numel(batch) * m * n * k;
}

double gflops_per_second(const std::vector<kael::ProfileEvent>& events) {
    std::int64_t flops = 0;
    double microseconds = 0;
    for (const kael::ProfileEvent& event : events) {
        if (is_matrix_product(event.name)) {
            flops += matmul_flops(event);
            microseconds += event.duration_us;
        }
    }
    if (microseconds <= 0) {
        return 0;
    }
    // flops per microsecond are 10^6 flops a second: divide by 10^3 more for 10^9.
    return static_cast<double>(flops) / microseconds / 1e3;
}

}  // namespace exercise
