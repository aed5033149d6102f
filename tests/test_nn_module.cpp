// nn::Module: registration, the deduplicated parameter walk, modes, moves and state dicts.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.h"
#include "kael/autograd.h"
#include "kael/device.h"
#include "kael/factory.h"
#include "kael/nn.h"
#include "kael/ops.h"
#include "kael/optim/sgd.h"
#include "kael/random.h"

namespace {

using kael::Tensor;
using kael::testing::message_of;
using kael::testing::values;

// A module with one parameter registered under two names, as a language model ties its
// embedding to its output layer.
class Tied : public kael::nn::Module {
public:
    Tied() {
        weight = register_parameter("weight", kael::ones({2, 2}));
        register_parameter("alias", weight);
        register_buffer("steps", kael::zeros({1}, kael::DType::I64));
        register_buffer("scratch", kael::zeros({3}), /*persistent=*/false);
    }
    std::string name() const override { return "Tied"; }
    Tensor weight = kael::empty({0});
};

std::vector<std::string> names_of(const std::vector<kael::nn::NamedTensor>& named) {
    std::vector<std::string> names;
    for (const auto& [name, tensor] : named) {
        names.push_back(name);
    }
    return names;
}

std::shared_ptr<kael::nn::Sequential> small_mlp() {
    return std::make_shared<kael::nn::Sequential>(std::vector<std::shared_ptr<kael::nn::UnaryModule>>{
        std::make_shared<kael::nn::Linear>(3, 4), std::make_shared<kael::nn::ReLU>(),
        std::make_shared<kael::nn::Linear>(4, 2)});
}

TEST(NnModule, SharedParameterIsListedOnce) {
    Tied module;
    ASSERT_EQ(module.parameters().size(), 1u);
    EXPECT_TRUE(module.parameters()[0].is_same(module.weight));
    EXPECT_EQ(names_of(module.named_parameters()), std::vector<std::string>{"weight"});
    // The state dict keeps both names, as PyTorch's does, so either can be loaded.
    EXPECT_EQ(module.state_dict().keys(), (std::vector<std::string>{"weight", "alias", "steps"}));
}

TEST(NnModule, ParametersAreNamedByPathInRegistrationOrder) {
    auto mlp = small_mlp();
    EXPECT_EQ(names_of(mlp->named_parameters()),
              (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
    EXPECT_EQ(mlp->parameters(/*recurse=*/false).size(), 0u);
    for (const Tensor& p : mlp->parameters()) {
        EXPECT_TRUE(p.requires_grad());
        EXPECT_TRUE(p.is_leaf());
    }
}

TEST(NnModule, BuffersAreNotParametersAndNonPersistentOnesAreNotSaved) {
    Tied module;
    EXPECT_EQ(names_of(module.named_buffers()), (std::vector<std::string>{"steps", "scratch"}));
    EXPECT_FALSE(module.buffers()[0].requires_grad());
    EXPECT_FALSE(module.state_dict().contains("scratch"));
}

TEST(NnModule, RegistrationRefusesTakenDottedAndEmptyNames) {
    class Bad : public kael::nn::Module {
    public:
        std::string name() const override { return "Bad"; }
        void add(const std::string& name) { register_parameter(name, kael::zeros({1})); }
        void add_buffer(const std::string& name) { register_buffer(name, kael::zeros({1})); }
        void add_computed() {
            Tensor leaf = kael::ones({1});
            leaf.requires_grad_();
            register_parameter("computed", leaf * 2);
        }
    };
    Bad bad;
    bad.add("w");
    EXPECT_NE(message_of([&] { bad.add("w"); }).find("attribute \"w\" already exists in Bad"), std::string::npos);
    EXPECT_THROW(bad.add_buffer("w"), kael::ValueError);  // a buffer may not take a parameter's name either
    EXPECT_THROW(bad.add("a.b"), kael::ValueError);
    EXPECT_THROW(bad.add(""), kael::ValueError);
    EXPECT_THROW(bad.add_computed(), kael::Error);
    EXPECT_EQ(bad.parameters().size(), 1u);  // nothing refused was registered
}

TEST(NnModule, TrainAndEvalReachEverySubmodule) {
    auto mlp = small_mlp();
    EXPECT_TRUE(mlp->is_training());
    mlp->eval();
    EXPECT_FALSE(mlp->is_training());
    EXPECT_FALSE((*mlp)[0]->is_training());
    mlp->train();
    EXPECT_TRUE((*mlp)[2]->is_training());
}

TEST(NnModule, ZeroGradClearsOrZeroesEveryParameter) {
    auto mlp = small_mlp();
    kael::sum((*mlp)(kael::ones({5, 3}))).backward();
    for (const Tensor& p : mlp->parameters()) {
        ASSERT_TRUE(p.grad().has_value());
    }
    mlp->zero_grad(/*set_to_none=*/false);
    for (const Tensor& p : mlp->parameters()) {
        ASSERT_TRUE(p.grad().has_value());
        for (float g : values<float>(*p.grad())) {
            EXPECT_EQ(g, 0.0f);
        }
    }
    mlp->zero_grad();
    for (const Tensor& p : mlp->parameters()) {
        EXPECT_FALSE(p.grad().has_value());
    }
}

TEST(NnModule, ToDtypeMovesInPlaceSoTheOptimizerKeepsItsTensors) {
    auto mlp = small_mlp();
    kael::optim::Sgd sgd(mlp->parameters(), {.lr = 0.5});
    const std::vector<Tensor> before = mlp->parameters();
    mlp->to(kael::DType::F64);
    ASSERT_EQ(sgd.parameters().size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        EXPECT_TRUE(sgd.parameters()[i].is_same(mlp->parameters()[i]));
        EXPECT_EQ(sgd.parameters()[i].dtype(), kael::DType::F64);
        EXPECT_TRUE(sgd.parameters()[i].requires_grad());
    }
    // The step the optimizer takes is seen by the model: they hold the same impls.
    const Tensor x = kael::ones({1, 3}, kael::DType::F64);
    kael::sum((*mlp)(x)).backward();
    const double bias_before = values<double>(*dynamic_cast<kael::nn::Linear&>(*(*mlp)[2]).bias)[0];
    sgd.step();
    EXPECT_DOUBLE_EQ(values<double>(*dynamic_cast<kael::nn::Linear&>(*(*mlp)[2]).bias)[0], bias_before - 0.5);
}

TEST(NnModule, ToDtypeKeepsIntegerBuffersAndRefusesIntegerTargets) {
    Tied module;
    module.to(kael::DType::F64);
    EXPECT_EQ(module.weight.dtype(), kael::DType::F64);
    EXPECT_EQ(module.buffers()[0].dtype(), kael::DType::I64);
    EXPECT_EQ(module.buffers()[1].dtype(), kael::DType::F64);
    EXPECT_THROW(module.to(kael::DType::I64), kael::TypeError);
}

TEST(NnModule, ToAMissingDeviceFailsBeforeAnythingMoves) {
    if (kael::cuda_is_available()) {
        GTEST_SKIP() << "this build has a GPU; the refusal is for builds without one";
    }
    auto mlp = small_mlp();
    EXPECT_THROW(mlp->to(kael::Device::CUDA), kael::Error);
    for (const Tensor& p : mlp->parameters()) {
        EXPECT_EQ(p.device(), kael::Device::CPU);
    }
    mlp->to(kael::Device::CPU);  // already there: nothing to do, nothing refused
}

TEST(NnModule, MoveToCarriesTheGradientAndRefusesNonLeaves) {
    Tensor p = kael::ones({2});
    p.requires_grad_();
    kael::sum(p * 3).backward();
    p.move_to_(kael::DType::F64);
    ASSERT_TRUE(p.grad().has_value());
    EXPECT_EQ(p.grad()->dtype(), kael::DType::F64);
    EXPECT_EQ(values<double>(*p.grad()), (std::vector<double>{3, 3}));
    Tensor computed = p * 2;
    EXPECT_THROW(computed.move_to_(kael::DType::F32), kael::Error);
    EXPECT_THROW(p.move_to_(kael::DType::I64), kael::TypeError);  // it requires grad
    EXPECT_EQ(p.dtype(), kael::DType::F64);                       // and the refusal changed nothing
}

TEST(NnModule, MovingATensorTheGraphSavedIsCaughtAtBackward) {
    Tensor x = kael::ones({2});
    x.requires_grad_();
    const Tensor y = kael::sum(x * x);  // the product saves x
    x.move_to_(kael::DType::F64);
    const std::string message = kael::testing::message_of([&] { y.backward(); });
    EXPECT_NE(message.find("moved to other storage"), std::string::npos) << message;
    EXPECT_FALSE(x.grad().has_value());
}

TEST(NnModule, GradientFollowsTheLeafThroughAMove) {
    // A product with a number saves nothing, so the backward pass can run after the move;
    // the gradient arrives in the leaf's new dtype.
    Tensor x = kael::ones({2});
    x.requires_grad_();
    const Tensor y = kael::sum(x * 3);
    x.move_to_(kael::DType::F64);
    y.backward();
    ASSERT_TRUE(x.grad().has_value());
    EXPECT_EQ(x.grad()->dtype(), kael::DType::F64);
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{3, 3}));
}

TEST(NnModule, MoveToLeavesEarlierViewsOnTheOldStorage) {
    Tensor t = kael::arange(4.0);
    const Tensor view = t.slice(0, 1);
    t.move_to_(kael::DType::F64);
    EXPECT_EQ(view.dtype(), kael::DType::F32);
    EXPECT_FALSE(view.shares_storage(t));
}

TEST(NnModule, StateDictRoundTripsIntoAFreshModel) {
    kael::manual_seed(1);
    auto source = small_mlp();
    kael::manual_seed(2);
    auto target = small_mlp();
    target->load_state_dict(source->state_dict());
    const Tensor x = kael::randn({4, 3});
    EXPECT_EQ(values<float>((*target)(x)), values<float>((*source)(x)));
    // The values were copied, not the tensors shared: the models are independent.
    EXPECT_FALSE(target->parameters()[0].shares_storage(source->parameters()[0]));
}

TEST(NnModule, LoadStateDictNamesMissingAndUnexpectedKeys) {
    auto model = small_mlp();
    kael::nn::StateDict partial;
    for (const auto& [key, tensor] : model->state_dict()) {
        if (key != "2.bias") {
            partial.insert(key, tensor.clone());
        }
    }
    partial.insert("3.weight", kael::zeros({1}));
    const std::string message = message_of([&] { model->load_state_dict(partial); });
    EXPECT_NE(message.find("Missing key(s) in state_dict: \"2.bias\"."), std::string::npos) << message;
    EXPECT_NE(message.find("Unexpected key(s) in state_dict: \"3.weight\"."), std::string::npos) << message;
    EXPECT_THROW(model->load_state_dict(partial), kael::ValueError);
}

TEST(NnModule, RefusedStateDictLeavesTheModelUnchanged) {
    auto model = small_mlp();
    const std::vector<float> before = values<float>(model->parameters()[0]);
    kael::nn::StateDict state;
    for (const auto& [key, tensor] : model->state_dict()) {
        // Every key is present, the first ones correct, the last one of the wrong shape.
        state.insert(key, key == "2.bias" ? kael::zeros({3}) : kael::zeros_like(tensor));
    }
    const std::string message = message_of([&] { model->load_state_dict(state); });
    EXPECT_NE(message.find("size mismatch for 2.bias: copying a param with shape [3] from checkpoint, "
                           "the shape in current model is [2]"),
              std::string::npos)
        << message;
    EXPECT_EQ(values<float>(model->parameters()[0]), before);
}

TEST(NnModule, LoadStateDictRefusesAnotherDtypeAndAllowsPartialWhenNotStrict) {
    auto model = small_mlp();
    kael::nn::StateDict state;
    state.insert("0.bias", kael::zeros({4}, kael::DType::F64));
    EXPECT_THROW(model->load_state_dict(state, /*strict=*/false), kael::TypeError);
    kael::nn::StateDict one;
    one.insert("0.bias", kael::full({4}, 7.0));
    model->load_state_dict(one, /*strict=*/false);
    EXPECT_EQ(values<float>(*dynamic_cast<kael::nn::Linear&>(*(*model)[0]).bias), (std::vector<float>{7, 7, 7, 7}));
}

TEST(NnModule, PrintsTheTreeAsPyTorchDoes) {
    std::ostringstream os;
    os << *small_mlp();
    EXPECT_EQ(os.str(),
              "Sequential(\n"
              "  (0): Linear(in_features=3, out_features=4, bias=true)\n"
              "  (1): ReLU()\n"
              "  (2): Linear(in_features=4, out_features=2, bias=true)\n"
              ")");
}

TEST(NnModuleList, RegistersItsModulesAndChecksIndices) {
    kael::nn::ModuleList<kael::nn::Linear> list;
    list.push_back(std::make_shared<kael::nn::Linear>(2, 2));
    list.push_back(std::make_shared<kael::nn::Linear>(2, 2, /*bias=*/false));
    EXPECT_EQ(list.size(), 2u);
    EXPECT_EQ(names_of(list.named_parameters()), (std::vector<std::string>{"0.weight", "0.bias", "1.weight"}));
    EXPECT_NO_THROW((void)list[1]);
    EXPECT_THROW((void)list[2], kael::IndexError);
    int visited = 0;
    for (const auto& layer : list) {
        visited += layer->weight.size(0) == 2 ? 1 : 0;
    }
    EXPECT_EQ(visited, 2);
}

}  // namespace
