// Trains a 784-512-256-10 MLP on Fashion-MNIST with Adam, as examples/mnist_mlp.py does in
// PyTorch: the same architecture, initialisation, optimizer, batch size and epochs.
//
//   mnist_mlp [--data DIR] [--epochs 10] [--batch-size 128] [--lr 1e-3] [--seed 0]
//             [--train-limit N] [--out DIR] [--target-accuracy PERCENT]
//
// DIR defaults to $KAEL_FASHION_MNIST, else /usr/share/datasets/fashion-mnist (Debian's
// dataset-fashion-mnist package). It prints one line per epoch and writes, under --out
// (default "."), the loss of every step (mnist_mlp_loss.csv) and the trained model
// (mnist_mlp.safetensors), which it loads back into a fresh model to check. With
// --target-accuracy it exits with status 1 unless some epoch reached that test accuracy,
// and with 77 (CTest's "skipped") when the dataset is not installed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "kael/kael.h"
#include "progress_bar.h"

namespace {

struct Options {
    std::filesystem::path data;
    std::int64_t epochs = 10;
    std::int64_t batch_size = 128;
    double lr = 1e-3;
    std::uint64_t seed = 0;
    std::int64_t train_limit = 0;  // 0: every training image
    std::filesystem::path out = ".";
    double target_accuracy = 0;  // percent; 0: no target
};

Options parse(int argc, char** argv) {
    Options options;
    const char* from_environment = std::getenv("KAEL_FASHION_MNIST");
    options.data = from_environment != nullptr ? from_environment : "/usr/share/datasets/fashion-mnist";
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help") {
            std::cout << "usage: mnist_mlp [--data DIR] [--epochs 10] [--batch-size 128] [--lr 1e-3] [--seed 0]\n"
                         "                 [--train-limit N] [--out DIR] [--target-accuracy PERCENT]\n";
            std::exit(0);
        }
        if (i + 1 >= argc) {
            throw kael::ValueError("missing value after " + flag);
        }
        const std::string value = argv[++i];
        if (flag == "--data") {
            options.data = value;
        } else if (flag == "--epochs") {
            options.epochs = std::stoll(value);
        } else if (flag == "--batch-size") {
            options.batch_size = std::stoll(value);
        } else if (flag == "--lr") {
            options.lr = std::stod(value);
        } else if (flag == "--seed") {
            options.seed = std::stoull(value);
        } else if (flag == "--train-limit") {
            options.train_limit = std::stoll(value);
        } else if (flag == "--out") {
            options.out = value;
        } else if (flag == "--target-accuracy") {
            options.target_accuracy = std::stod(value);
        } else {
            throw kael::ValueError("unknown option " + flag);
        }
    }
    if (options.epochs < 1 || options.lr <= 0) {
        throw kael::ValueError("--epochs must be at least 1 and --lr positive");
    }
    return options;
}

// Images as float32 rows of 784 values in [0, 1] (what torchvision's ToTensor gives), and
// labels as int64.
kael::data::TensorDataset load_split(const std::filesystem::path& dir, const std::string& split, std::int64_t limit) {
    kael::Tensor images = kael::data::read_idx(dir / (split + "-images-idx3-ubyte.gz"), kael::DType::F32);
    kael::Tensor labels = kael::data::read_idx(dir / (split + "-labels-idx1-ubyte.gz"), kael::DType::I64);
    if (limit > 0 && limit < images.size(0)) {
        images = images.narrow(0, 0, limit);
        labels = labels.narrow(0, 0, limit);
    }
    return kael::data::TensorDataset({kael::div(images.reshape({images.size(0), -1}), 255.0), labels});
}

std::shared_ptr<kael::nn::Sequential> make_model() {
    using kael::nn::Linear;
    using kael::nn::ReLU;
    return std::make_shared<kael::nn::Sequential>(std::vector<std::shared_ptr<kael::nn::UnaryModule>>{
        std::make_shared<Linear>(784, 512), std::make_shared<ReLU>(), std::make_shared<Linear>(512, 256),
        std::make_shared<ReLU>(), std::make_shared<Linear>(256, 10)});
}

// The fraction of test images whose largest logit is the right class.
double accuracy(kael::nn::Sequential& model, const kael::data::TensorDataset& test) {
    const kael::autograd::NoGradGuard no_grad;
    model.eval();
    std::int64_t correct = 0;
    for (const auto& batch : kael::data::DataLoader(test, {.batch_size = 1000})) {
        const kael::Tensor predicted = kael::argmax(model(batch[0]), 1);
        correct += kael::sum(kael::eq(predicted, batch[1])).item<std::int64_t>();
    }
    model.train();
    return static_cast<double>(correct) / static_cast<double>(test.size());
}

}  // namespace

int main(int argc, char** argv) try {
    const Options options = parse(argc, argv);
    if (options.target_accuracy > 0 && !std::filesystem::exists(options.data / "t10k-labels-idx1-ubyte.gz")) {
        std::cout << "skipped: no Fashion-MNIST in " << options.data << " (install dataset-fashion-mnist)\n";
        return 77;
    }
    kael::manual_seed(options.seed);
    const kael::data::TensorDataset train = load_split(options.data, "train", options.train_limit);
    const kael::data::TensorDataset test = load_split(options.data, "t10k", 0);
    auto model = make_model();
    kael::optim::Adam adam(model->parameters(), {.lr = options.lr});
    const kael::data::DataLoader loader(train, {.batch_size = options.batch_size, .shuffle = true});

    std::filesystem::create_directories(options.out);
    std::ofstream curve(options.out / "mnist_mlp_loss.csv");
    curve << "step,epoch,loss\n";
    std::cout << "Fashion-MNIST: " << train.size() << " training and " << test.size() << " test images\n"
              << "matrix products: " << kael::matmul_kernel_description() << "\n"
              << *model << "\n";

    std::int64_t step = 0;
    double total_seconds = 0;
    double best_accuracy = 0;
    for (std::int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
        const auto start = std::chrono::steady_clock::now();
        ProgressBar progress(loader.size(), options.batch_size);
        double loss_sum = 0;
        std::int64_t batches = 0;
        for (const auto& batch : loader) {
            const kael::Tensor loss = kael::cross_entropy((*model)(batch[0]), batch[1]);
            adam.zero_grad();
            loss.backward();
            adam.step();
            const double value = loss.item();
            loss_sum += value;
            curve << ++step << ',' << epoch << ',' << value << '\n';
            ++batches;
            progress.update(batches, loss_sum / static_cast<double>(batches));
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        total_seconds += seconds;
        const double epoch_accuracy = 100.0 * accuracy(*model, test);
        best_accuracy = std::max(best_accuracy, epoch_accuracy);
        std::printf("epoch %2lld/%lld  train loss %.4f  test accuracy %.2f%%  %.1f s\n",
                    static_cast<long long>(epoch), static_cast<long long>(options.epochs),
                    loss_sum / static_cast<double>(batches), epoch_accuracy, seconds);
        std::fflush(stdout);
    }
    const double final_accuracy = accuracy(*model, test);
    std::printf("training took %.1f s, %.1f s per epoch\n", total_seconds,
                total_seconds / static_cast<double>(options.epochs));

    // The checkpoint, read back into a model with different weights: the same predictions.
    const std::filesystem::path checkpoint = options.out / "mnist_mlp.safetensors";
    kael::io::save_safetensors(model->state_dict(), checkpoint);
    kael::manual_seed(options.seed + 1);
    auto reloaded = make_model();
    reloaded->load_state_dict(kael::io::load_safetensors(checkpoint));
    std::printf("checkpoint %s: test accuracy %.2f%% after reloading\n", checkpoint.filename().c_str(),
                100.0 * accuracy(*reloaded, test));
    std::printf("final test accuracy %.2f%%\n", 100.0 * final_accuracy);
    if (best_accuracy < options.target_accuracy) {
        std::printf("the best epoch reached %.2f%%, below the target of %.2f%%\n", best_accuracy,
                    options.target_accuracy);
        return 1;
    }
    return 0;
} catch (const std::exception& error) {
    std::cerr << "mnist_mlp: " << error.what() << "\n";
    return 1;
}
