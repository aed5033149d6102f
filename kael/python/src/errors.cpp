// kael's errors as Python exceptions (chapter 10): the class follows the C++ type, the
// message is the C++ message. IndexError, ValueError and TypeError keep their meaning
// (a Python `for` loop over t[i] stops at IndexError, as over a list); every other
// kael::Error is a RuntimeError, as PyTorch raises for its own failures. std::bad_alloc
// is pybind11's MemoryError.
#include <exception>

#include "bindings.h"
#include "kael/error.h"

namespace kael::python {

void bind_errors(pybind11::module_& /*m*/) {
    pybind11::register_exception_translator([](std::exception_ptr raised) {
        try {
            if (raised) {
                std::rethrow_exception(raised);
            }
        } catch (const IndexError& error) {
            PyErr_SetString(PyExc_IndexError, error.what());
        } catch (const ValueError& error) {
            PyErr_SetString(PyExc_ValueError, error.what());
        } catch (const TypeError& error) {
            PyErr_SetString(PyExc_TypeError, error.what());
        } catch (const Error& error) {
            PyErr_SetString(PyExc_RuntimeError, error.what());
        }
    });
}

}  // namespace kael::python
