/* The profile phase in a batch against one configuration at a time, on a GPU,
 * through the sweep's CUPTI plug (harness/device/profiler_cupti.h): the same
 * configurations (reductions at 2^24, f32 sum, every block dim and coarse
 * factor they accept, up to SWEEP_PROFILE_QUEUE_MAX) measured once each by profile()
 * (profiler_measure) and once together by queue() + run_queue()
 * (profiler_measure_batch). The batch must give the same quantities: DRAM
 * bytes read within 2 %, instructions and warp efficiency within 1 %; each
 * configuration's range entered once per pass, in order; and it must cost
 * less. Prints, on success:
 *   profile batch: 64 configs, 0.0123 s/config vs single 0.165 s/config (13.4x)
 * Reductions only: their instruction counts do not depend on timing (a
 * look-back scan's polling does). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "harness/device/device.h"
#include "harness/device/profiler_cupti.h"
#include "kernels/registry.h"

#define N ((size_t)1 << 24)
#define MAX_CONFIGS SWEEP_PROFILE_QUEUE_MAX

typedef struct config {
    const variant *v;
    kernel_args a;
    void *ws; /* for profile(): the batch's are the plug's own */
} config;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CUDA_OK(call)                                                                                      \
    do {                                                                                                   \
        cudaError_t e_ = (call);                                                                           \
        if (e_ != cudaSuccess) fail_msg("%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    } while (0)

/* Every block dim x coarse factor of the variants that they accept, on shared buffers. */
static size_t make_configs(config *c, const void *in, void *out)
{
    static const char *const names[] = {"reduce_coarsened", "reduce_one_launch"};
    static const unsigned blocks[] = {128, 256, 512, 1024};
    static const unsigned coarse[] = {1, 2, 4, 8, 16, 32};
    size_t k = 0;
    for (size_t vi = 0; vi < 2; vi++) {
        const variant *v = registry_find(names[vi]);
        if (!v) fail_msg("no variant %s in the registry", names[vi]);
        for (size_t b = 0; b < 4; b++)
            for (size_t x = 0; x < 6 && k < MAX_CONFIGS; x++)
                for (int f = 0; f < FINISH_COUNT; f++) {
                    kernel_args a = {.dtype = DTYPE_F32, .op = OP_SUM, .n = N, .block_dim = blocks[b],
                                     .axis = {coarse[x], 1}, .finish = (finish_t)f, .scan_mode = SCAN_INCLUSIVE,
                                     .in = in, .out = out};
                    const char *why = NULL;
                    if (variant_accepts(v, &a, &why) != 0) continue;
                    a.workspace_bytes = v->workspace_size(&a);
                    c[k] = (config){v, a, NULL};
                    if (a.workspace_bytes) CUDA_OK(cudaMalloc(&c[k].ws, a.workspace_bytes));
                    c[k].a.workspace = c[k].ws;
                    if (v->workspace_init) CUDA_OK(v->workspace_init(&c[k].a, 0));
                    k++;
                    break; /* one finish each */
                }
    }
    CUDA_OK(cudaDeviceSynchronize());
    return k;
}

/* The hooks: every range entered once per pass, slots in order. */
typedef struct hook_log {
    size_t entered, left, next, count;
    int open, out_of_order;
} hook_log;

static void on_enter(void *user, size_t k)
{
    hook_log *h = user;
    if (h->open || k != h->next) h->out_of_order = 1;
    h->open = 1;
    h->entered++;
}

static void on_leave(void *user, size_t k)
{
    hook_log *h = user;
    if (!h->open || k != h->next) h->out_of_order = 1;
    h->open = 0;
    h->left++;
    h->next = (k + 1) % h->count;
}

static int column(const sweep_profiler_setup *s, const char *key)
{
    for (size_t i = 0; i < s->metric_count; i++)
        if (!strcmp(s->metrics[i].name, key)) return (int)i;
    fail_msg("no column %s in the default set", key);
    return -1;
}

static void expect_close(const char *what, size_t k, const config *c, double single, double batch, double rel)
{
    if (!isfinite(single) || !isfinite(batch))
        fail_msg("%s of %s block=%u coarse=%u (config %zu): single %g, batch %g (not a number)", what, c->v->name,
                 c->a.block_dim, c->a.axis[0], k, single, batch);
    double scale = fabs(single) > fabs(batch) ? fabs(single) : fabs(batch);
    if (fabs(single - batch) > rel * scale)
        fail_msg("%s of %s block=%u coarse=%u (config %zu): single %.6g, batch %.6g: %.3f %% apart (allowed %.1f %%)",
                 what, c->v->name, c->a.block_dim, c->a.axis[0], k, single, batch,
                 100 * fabs(single - batch) / scale, 100 * rel);
}

static void test_gpu_batch_equals_single(void **state)
{
    (void)state;
    device_info dev;
    char msg[1024];
    if (device_open(0, &dev, msg, sizeof msg)) fail_msg("%s", msg);
    const sweep_profiler *p = sweep_profiler_cupti();
    sweep_profiler_setup s;
    memset(&s, 0, sizeof s);
    s.device = &dev; /* the default metric set */
    int answer = p->begin(p->state, &s);
    if (answer == SWEEP_PROFILER_UNAVAILABLE) {
        printf("SKIPPED: the GPU counters are not available here: %s\n", s.status);
        p->end(p->state);
        return;
    }
    if (answer != SWEEP_PROFILER_READY) fail_msg("begin: %d: %s", answer, s.status);
    assert_non_null(p->queue);
    assert_non_null(p->run_queue);

    float *host = malloc(N * sizeof *host);
    assert_non_null(host);
    srand(28);
    for (size_t i = 0; i < N; i++) host[i] = (float)rand() / (float)RAND_MAX; /* fresh, never zeros */
    void *in, *out;
    CUDA_OK(cudaMalloc(&in, N * sizeof(float)));
    CUDA_OK(cudaMalloc(&out, N * sizeof(float)));
    CUDA_OK(cudaMemcpy(in, host, N * sizeof(float), cudaMemcpyHostToDevice));
    free(host);
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    config *c = calloc(MAX_CONFIGS, sizeof *c);
    size_t count = make_configs(c, in, out);
    assert_true(count >= 16);
    size_t mc = s.metric_count;
    double *single = malloc(count * mc * sizeof *single), *batch = malloc(count * mc * sizeof *batch);
    for (size_t i = 0; i < count * mc; i++) single[i] = batch[i] = NAN;

    double t0 = now_s();
    for (size_t k = 0; k < count; k++) {
        char err[1024] = "";
        if (p->before && p->before(p->state, c[k].v, &c[k].a, stream, err, sizeof err)) fail_msg("before: %s", err);
        if (p->profile(p->state, "single", c[k].v, &c[k].a, stream, single + k * mc, err, sizeof err))
            fail_msg("profile (config %zu, %s block=%u): %s", k, c[k].v->name, c[k].a.block_dim, err);
        if (p->after && p->after(p->state, c[k].v, &c[k].a, stream, err, sizeof err)) fail_msg("after: %s", err);
    }
    double t_single = now_s() - t0;

    t0 = now_s();
    hook_log h = {.count = count};
    sweep_profile_hooks hooks = {&h, on_enter, on_leave};
    for (size_t k = 0; k < count; k++) {
        char err[1024] = "";
        kernel_args a = c[k].a;
        a.workspace = NULL; /* the plug's own from here: a stale pointer must not be used */
        int r = p->queue(p->state, k, c[k].v, &a, stream, err, sizeof err);
        if (r < 0) fail_msg("queue (config %zu): %s", k, err);
        if (r == SWEEP_PROFILE_QUEUE_FULL && k + 1 < count) fail_msg("queue full after %zu configurations", k + 1);
    }
    char err[1024] = "";
    if (p->run_queue(p->state, count, &hooks, stream, batch, mc, err, sizeof err)) fail_msg("run_queue: %s", err);
    double t_batch = now_s() - t0;
    if (profiler_cupti_batches_failed()[0])
        fail_msg("CUPTI refused the batch (the plug fell back to one configuration a session): %s",
                 profiler_cupti_batches_failed());

    if (h.out_of_order) fail_msg("ranges entered out of order or nested");
    if (h.entered != count * (size_t)s.passes || h.left != h.entered)
        fail_msg("ranges entered %zu, left %zu times; want %zu configurations x %d passes", h.entered, h.left, count,
                 s.passes);
    int dram = column(&s, "dram_read_bytes"), inst = column(&s, "instructions"), warp = column(&s, "warp_efficiency");
    for (size_t k = 0; k < count; k++) {
        double input = (double)N * sizeof(float);
        if (!(single[k * mc + dram] > 0.95 * input)) fail_msg("config %zu: dram read %g < input %g", k,
                                                             single[k * mc + dram], input);
        expect_close("dram_read_bytes", k, &c[k], single[k * mc + dram], batch[k * mc + dram], 0.02);
        expect_close("instructions", k, &c[k], single[k * mc + inst], batch[k * mc + inst], 0.01);
        expect_close("warp_efficiency", k, &c[k], single[k * mc + warp], batch[k * mc + warp], 0.01);
    }
    printf("profile batch: %zu configs, %.4f s/config vs single %.4f s/config (%.1fx), %d passes\n", count,
           t_batch / count, t_single / count, t_single / t_batch, s.passes);
    if (!(t_batch < 0.5 * t_single))
        fail_msg("the batch took %.4f s/config, not under half of one at a time (%.4f s/config)", t_batch / count,
                 t_single / count);

    for (size_t k = 0; k < count; k++)
        if (c[k].ws) cudaFree(c[k].ws);
    free(c);
    free(single);
    free(batch);
    cudaFree(in);
    cudaFree(out);
    cudaStreamDestroy(stream);
    p->end(p->state);
}

int main(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIPPED: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none");
        return 0;
    }
    const struct CMUnitTest gpu[] = {
        cmocka_unit_test(test_gpu_batch_equals_single),
    };
    return cmocka_run_group_tests_name("profiler_batch_gpu", gpu, NULL, NULL);
}
