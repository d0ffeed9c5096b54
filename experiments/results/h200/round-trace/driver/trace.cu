/* Trace driver: runs one build of scan_lookahead_bulk (included below,
 * instrumented by instrument.py) at one configuration, cold, and writes each
 * traced launch's events. Usage: trace DTYPE(f32|f64) LOG2N BLOCK ITEMS REPS OUTPREFIX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include SLB_SOURCE

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void fill_kernel(float *p, size_t words) {
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < words; k += (size_t)gridDim.x * blockDim.x)
        p[k] = 1.0f + (float)(k & 7) * 0.125f;
}

__global__ void fill_small(void *p, size_t n, int dt) {
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        int v = (int)(k % 7) - 2;
        if (dt == DTYPE_I32) ((int *)p)[k] = v; else if (dt == DTYPE_F64) ((double *)p)[k] = v; else ((float *)p)[k] = (float)v;
    }
}

int main(int argc, char **argv) {
    if (argc < 7) { fprintf(stderr, "usage\n"); return 2; }
    dtype_t dt = strcmp(argv[1], "f64") == 0 ? DTYPE_F64 : strcmp(argv[1], "i32") == 0 ? DTYPE_I32 : DTYPE_F32;
    int exclusive = argc > 7 && strcmp(argv[7], "ex") == 0;
    size_t n = atoll(argv[2]) > 64 ? (size_t)atoll(argv[2]) : (size_t)1 << atoi(argv[2]);
    unsigned block = atoi(argv[3]), items = atoi(argv[4]), reps = atoi(argv[5]);
    const char *prefix = argv[6];
    size_t es = dt == DTYPE_F64 ? 8 : 4, bytes = n * es;
    void *in, *out, *ws, *flush, *cpy;
    size_t flush_bytes = (size_t)512 << 20;
    CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes)); CK(cudaMalloc(&cpy, bytes)); CK(cudaMalloc(&flush, flush_bytes));
    fill_kernel<<<1024, 256>>>((float *)in, bytes / 4);
    kernel_args a; memset(&a, 0, sizeof a);
    a.dtype = dt; a.op = OP_SUM; a.n = n; a.block_dim = block; a.axis[0] = items; a.axis[1] = 1;
    a.scan_mode = exclusive ? SCAN_EXCLUSIVE : SCAN_INCLUSIVE; a.in = in; a.out = out;
    const variant *v = &scan_lookahead_bulk_variant;
    a.workspace_bytes = v->workspace_size(&a);
    CK(cudaMalloc(&ws, a.workspace_bytes)); a.workspace = ws;
    size_t tr_n = (size_t)1024 * SLB_MAXR * 8, tile_n = (size_t)1024 * SLB_MAXR, end_n = 1024 * 4;
    unsigned long long *d_tr, *d_end; unsigned *d_tile;
    CK(cudaMalloc(&d_tr, tr_n * 8)); CK(cudaMalloc(&d_tile, tile_n * 4)); CK(cudaMalloc(&d_end, end_n * 8));
    CK(cudaMemcpyToSymbol(slb_trace, &d_tr, sizeof d_tr)); CK(cudaMemcpyToSymbol(slb_tile, &d_tile, sizeof d_tile));
    CK(cudaMemcpyToSymbol(slb_end, &d_end, sizeof d_end));
    CK(v->workspace_init(&a, 0));
    for (int w = 0; w < 3; w++) CK(v->launch(&a, 0));
    CK(cudaDeviceSynchronize());
    unsigned long long *h_tr = (unsigned long long *)malloc(tr_n * 8), *h_end = (unsigned long long *)malloc(end_n * 8);
    unsigned *h_tile = (unsigned *)malloc(tile_n * 4);
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    for (unsigned rep = 0; rep < reps; rep++) {
        float ms_scan, ms_copy;
        CK(cudaMemset(d_tr, 0, tr_n * 8)); CK(cudaMemset(d_tile, 0xff, tile_n * 4)); CK(cudaMemset(d_end, 0, end_n * 8));
        CK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes));
        CK(cudaEventRecord(e0)); CK(cudaMemcpyAsync(cpy, in, bytes, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms_copy, e0, e1));
        CK(cudaMemsetAsync(flush, (rep + 1) & 0xff, flush_bytes));
        CK(cudaEventRecord(e0)); CK(v->launch(&a, 0)); CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms_scan, e0, e1));
        CK(cudaGetLastError());
        CK(cudaMemcpy(h_tr, d_tr, tr_n * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h_tile, d_tile, tile_n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h_end, d_end, end_n * 8, cudaMemcpyDeviceToHost));
#ifndef SLB_TRACE_OFF
        unsigned blocks = 0;
        while (blocks < 1024 && h_end[blocks * 4]) blocks++;
        char path[512]; snprintf(path, sizeof path, "%s-%u.bin", prefix, rep);
        FILE *f = fopen(path, "wb");
        unsigned hdr[4] = {blocks, SLB_MAXR, 0, 0};
        fwrite(hdr, 4, 4, f); fwrite(h_tr, 8, (size_t)blocks * SLB_MAXR * 8, f); fwrite(h_tile, 4, (size_t)blocks * SLB_MAXR, f);
        fwrite(h_end, 8, (size_t)blocks * 4, f); fclose(f);
#endif
        printf("%s rep %u scan_ms %.4f copy_ms %.4f pct_of_copy %.2f\n", prefix, rep, ms_scan, ms_copy, 100.0 * ms_copy / ms_scan);
    }
    /* validate: small integers (exact in f64 and i32; f32 by relative tolerance) */
    fill_small<<<1024, 256>>>(in, n, (int)dt);
    CK(cudaMemset(out, 0xff, bytes));
    CK(v->launch(&a, 0));
    CK(cudaDeviceSynchronize());
    char *h = (char *)malloc(bytes);
    CK(cudaMemcpy(h, out, bytes, cudaMemcpyDeviceToHost));
    size_t bad = 0, first = (size_t)-1;
    double acc = 0; unsigned iacc = 0;
    for (size_t k = 0; k < n; k++) {
        int val = (int)(k % 7) - 2;
        double ref_d = exclusive ? acc : acc + val;
        unsigned ref_i = exclusive ? iacc : iacc + (unsigned)val;
        acc += val; iacc += (unsigned)val;
        int ok;
        if (dt == DTYPE_I32) ok = ((unsigned *)h)[k] == ref_i;
        else if (dt == DTYPE_F64) ok = ((double *)h)[k] == ref_d;
        else { double g = ((float *)h)[k]; ok = fabs(g - ref_d) <= 1e-4 * (fabs(ref_d) + 64.0); }
        if (!ok) { bad++; if (first == (size_t)-1) first = k; }
    }
    printf("%s validate %s n=%zu %s: %zu bad (first %zd)\n", prefix, argv[1], n, exclusive ? "exclusive" : "inclusive", bad, (ssize_t)first);
    return bad ? 1 : 0;
}
