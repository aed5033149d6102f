// ADR 0002 (tensor as a shared handle): who shares what after copies, a hand-built view
// and a clone, with the reference counts that make the sharing visible. Each part prints
// one section of the output.
#include <cstdint>
#include <iostream>
#include <memory>
#include <string_view>
#include <type_traits>

#include "kael/kael.h"

namespace {

using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

void counts(std::string_view step, const Tensor& a) {
    std::cout << step << "impl refs " << a.use_count() << ", storage refs "
              << a.impl()->storage.use_count() << '\n';
}

// The transpose of a 2-d tensor, built by hand the way chapter 03's views will build it:
// a new impl with swapped shape and strides over the same storage.
Tensor transposed(const Tensor& a) {
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = a.impl()->storage;
    impl->shape = {a.size(1), a.size(0)};
    impl->strides = {a.stride(1), a.stride(0)};
    impl->offset = a.offset();
    impl->dtype = a.dtype();
    impl->device = a.device();
    return Tensor::from_impl(std::move(impl));
}

// Takes its argument by value, as most functions that receive a tensor do.
void set_first(Tensor t, float value) { t.at<float>({0, 0}) = value; }

}  // namespace

int main() {
    std::cout << std::boolalpha;

    section("layout");
    std::cout << "sizeof(Tensor)                         = " << sizeof(Tensor) << '\n';
    std::cout << "sizeof(std::shared_ptr<TensorImpl>)    = "
              << sizeof(std::shared_ptr<kael::TensorImpl>) << '\n';
    std::cout << "Tensor is default constructible:         "
              << std::is_default_constructible_v<Tensor> << '\n';
    std::cout << "Storage is copy constructible:           "
              << std::is_copy_constructible_v<kael::Storage> << '\n';

    section("refcounts");
    // book-region: four-lines
    Tensor a = kael::zeros({2, 3});
    counts("Tensor a = zeros({2, 3});   ", a);
    Tensor b = a;
    counts("Tensor b = a;               ", a);
    Tensor t = transposed(a);
    counts("Tensor t = transposed(a);   ", a);
    Tensor c = a.clone();
    counts("Tensor c = a.clone();       ", a);
    // end-book-region: four-lines
    counts("and for c:                  ", c);
    std::cout << "a.is_same(b) = " << a.is_same(b) << ", a.shares_storage(b) = "
              << a.shares_storage(b) << '\n';
    std::cout << "a.is_same(t) = " << a.is_same(t) << ", a.shares_storage(t) = "
              << a.shares_storage(t) << '\n';
    std::cout << "a.is_same(c) = " << a.is_same(c) << ", a.shares_storage(c) = "
              << a.shares_storage(c) << '\n';

    section("writes");
    b.at<float>({1, 1}) = 42.0f;
    std::cout << "after b.at<float>({1, 1}) = 42:\n";
    std::cout << "a = " << a << '\n';
    std::cout << "t = " << t << '\n';
    std::cout << "c = " << c << '\n';
    std::cout << "t.at<float>({1, 1}) = " << t.at<float>({1, 1}) << " (storage position "
              << t.offset() + 1 * t.stride(0) + 1 * t.stride(1) << ")\n";

    section("by-value");
    set_first(a, 5.0f);
    std::cout << "after set_first(a, 5), a.at<float>({0, 0}) = " << a.at<float>({0, 0}) << '\n';
    std::cout << "a.to(DType::F32).is_same(a)  = " << a.to(kael::DType::F32).is_same(a) << '\n';
    std::cout << "a.to(Device::CPU).is_same(a) = " << a.to(kael::Device::CPU).is_same(a) << '\n';
    std::cout << "a.contiguous().is_same(a)    = " << a.contiguous().is_same(a) << '\n';
    std::cout << "t.contiguous().is_same(t)    = " << t.contiguous().is_same(t) << '\n';

    section("version");
    std::cout << "versions before: a " << a.impl()->storage->version() << ", t "
              << t.impl()->storage->version() << ", c " << c.impl()->storage->version()
              << '\n';
    t.impl()->storage->bump_version();  // what an in-place write through t will do
    std::cout << "after one bump through t: a " << a.impl()->storage->version() << ", t "
              << t.impl()->storage->version() << ", c " << c.impl()->storage->version()
              << '\n';

    section("lifetime");
    std::weak_ptr<kael::Storage> watch = a.impl()->storage;
    std::weak_ptr<const kael::TensorImpl> first_impl = a.impl();
    {
        Tensor survivor = transposed(a);
        a = kael::ones({1});
        b = a;
        std::cout << "a and b now name another tensor; first impl alive: "
                  << !first_impl.expired() << ", storage alive: " << !watch.expired() << '\n';
        std::cout << "survivor still reads its data: " << survivor << '\n';
    }
    std::cout << "survivor gone; storage alive: " << !watch.expired() << " (t still holds it)\n";
    t = c;
    std::cout << "t = c; storage alive: " << !watch.expired() << '\n';

    section("validate");
    auto bad = std::make_shared<kael::TensorImpl>();
    bad->storage = c.impl()->storage;  // 24 bytes
    bad->shape = {2, 3};
    bad->strides = {3, 1};
    bad->offset = 1;  // one element too far: the last element would be byte 24..27
    try {
        (void)Tensor::from_impl(std::move(bad));
        std::cout << "accepted\n";
    } catch (const kael::Error& error) {
        std::cout << error.what() << '\n';
    }
    return 0;
}
