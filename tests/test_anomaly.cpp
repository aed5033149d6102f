// Anomaly detection (chapter 13): with the switch on, the first node whose formula returns
// NaN or infinity stops the backward pass with a message naming the node, the gradient
// and the forward operation with its input shapes; with it off, the gradient flows as
// PyTorch's does.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "helpers.h"
#include "kael/autograd/anomaly.h"
#include "kael/kael.h"

namespace kael {
namespace {

using testing::values;

// sqrt at 0 has an infinite derivative: backward of sqrt(x) at x = 0 gives inf.
TEST(Anomaly, InfinityInBackwardNamesTheForwardOperationAndItsShapes) {
    const Tensor x = from_vector<float>({0.0f, 1.0f, 4.0f}).requires_grad_();
    const autograd::DetectAnomalyGuard anomaly;
    const Tensor y = sqrt(x).sum();
    try {
        y.backward();
        FAIL() << "backward of sqrt at 0 should stop with anomaly detection on";
    } catch (const Error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("Function 'SqrtBackward' returned inf values in its 0th output"), std::string::npos)
            << message;
        EXPECT_NE(message.find("the forward operation was sqrt on [3] float32"), std::string::npos) << message;
    }
    EXPECT_FALSE(x.grad().has_value()) << "the pass stopped before AccumulateGrad";
}

// a / b at a = b = 0: the gradient for the divisor, -grad * a / b^2, is 0 / 0. The
// dividend does not require grad, so the divisor's gradient is the node's only output.
TEST(Anomaly, NanInBackwardNamesTheNodeAndTheGradientIndex) {
    const Tensor a = from_vector<float>({0.0f, 1.0f});
    const Tensor b = from_vector<float>({0.0f, 2.0f}).requires_grad_();
    const autograd::DetectAnomalyGuard anomaly;
    const Tensor y = (a / b).sum();
    try {
        y.backward();
        FAIL() << "backward of 0 / 0 should stop with anomaly detection on";
    } catch (const Error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("Function 'DivBackward' returned nan values in its 1st output "
                               "(the gradient of its input 1, shape [2])"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("the forward operation was div on [2] float32, [2] float32"), std::string::npos)
            << message;
    }
}

TEST(Anomaly, OffByDefaultTheNonFiniteGradientArrivesAsInPyTorch) {
    EXPECT_FALSE(autograd::is_anomaly_enabled());
    const Tensor x = from_vector<float>({0.0f, 4.0f}).requires_grad_();
    sqrt(x).sum().backward();
    const std::vector<float> grad = values<float>(*x.grad());
    EXPECT_TRUE(std::isinf(grad[0]));
    EXPECT_FLOAT_EQ(grad[1], 0.25f);
}

TEST(Anomaly, FiniteGradientsPassTheCheckUnchanged) {
    const Tensor x = from_vector<float>({1.0f, 4.0f}).requires_grad_();
    {
        const autograd::DetectAnomalyGuard anomaly;
        EXPECT_TRUE(autograd::is_anomaly_enabled());
        sqrt(x).sum().backward();
    }
    EXPECT_FALSE(autograd::is_anomaly_enabled()) << "the guard restores the previous mode";
    EXPECT_EQ(values<float>(*x.grad()), (std::vector<float>{0.5f, 0.25f}));
}

// An empty gradient has no element to check.
TEST(Anomaly, EmptyGradientsAreNotAnomalies) {
    const Tensor x = zeros({0, 3}).requires_grad_();
    const autograd::DetectAnomalyGuard anomaly;
    sqrt(x).sum().backward();
    EXPECT_EQ(x.grad()->shape(), (Shape{0, 3}));
}

// The switch is process-wide, as PyTorch's: a backward pass on another thread sees it.
TEST(Anomaly, TheSwitchHoldsForBackwardOnAnotherThread) {
    const Tensor x = from_vector<float>({0.0f}).requires_grad_();
    const Tensor y = sqrt(x).sum();
    const autograd::DetectAnomalyGuard anomaly;
    bool stopped = false;
    std::thread([&] {
        try {
            y.backward();
        } catch (const Error&) {
            stopped = true;
        }
    }).join();
    EXPECT_TRUE(stopped);
}

TEST(Anomaly, ForwardNamesComeFromNodeNames) {
    const Tensor x = from_vector<float>({1.0f, 2.0f}).requires_grad_();
    EXPECT_EQ(autograd::forward_name(*log_softmax(x, 0).grad_fn()), "log_softmax");
    EXPECT_EQ(autograd::forward_name(*(x * x).grad_fn()), "mul");
    EXPECT_EQ(autograd::describe_inputs(*(x * x).grad_fn()), "[2] float32, [2] float32");
}

}  // namespace
}  // namespace kael
