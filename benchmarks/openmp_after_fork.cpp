// The experiment behind ADR 0006's fork argument: a process that has run one OpenMP
// parallel region forks, and the child starts another. GCC's libgomp keeps its thread pool
// across fork() without handlers, so the child waits for workers that only the parent
// has. The child gets five seconds (alarm) before it is counted as hung. kael's pool makes
// a fresh one in the child (kael/src/core/parallel.cpp; the test
// Parallel.AForkedChildRunsParallelLoopsWithAPoolOfItsOwn).
//
//   build/main/benchmarks/kael_openmp_after_fork
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace {

long sum_below(int n) {
    long total = 0;
#pragma omp parallel for num_threads(2) reduction(+ : total)
    for (int i = 0; i < n; ++i) {
        total += i;
    }
    return total;
}

}  // namespace

int main() {
    const long parent = sum_below(1000);
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(5);
        std::printf("child: %ld\n", sum_below(1000));
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const bool hung = WIFSIGNALED(status);
    std::printf("parent: %ld; the child's OpenMP region %s\n", parent,
                hung ? "never finished (killed after 5 s)" : "finished");
    return hung ? 1 : 0;
}
