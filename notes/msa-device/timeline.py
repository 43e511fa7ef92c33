# notes/msa-device/timeline.py OUT.cu - writes a copy of chapters/06-fused/fused.cu
# with clock64() marks at the phase boundaries of the resident path; thread 0 of
# the first and last block prints them (the check launch and the 30th launch).
# Diagnostic only; run.sh builds and runs it.
import sys
s = open(sys.argv[2] if len(sys.argv) > 2 else 'chapters/06-fused/fused.cu').read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old[:60]
    s = s.replace(old, new)
rep('#define FUSED_THREADS 256', '''#define FUSED_THREADS 256
__device__ unsigned long long timeline_launches;
#define TL(k) do { if (threadIdx.x == 0) tl[k] = clock64(); } while (0)''')
rep('    const int b = (int)(column / N), n = (int)(column % N);\n',
    '    const int b = (int)(column / N), n = (int)(column % N);\n    long long tl[10] = {0}; TL(0);\n    const unsigned long long launch = timeline_launches;\n')
rep('''    copy_async_wait<2>();
    __syncthreads();
    layer_norm_rows<D>(xn, L::X_STRIDE, S, vectors, vectors + D);
    __syncthreads();
''', '''    copy_async_wait<2>();
    __syncthreads();
    TL(1);
    layer_norm_rows<D>(xn, L::X_STRIDE, S, vectors, vectors + D);
    __syncthreads();
    TL(2);
''')
rep('''        __syncwarp();
        project<D, CLUSTER, RESIDENT, 4 * L::OWN>(p, proj, vectors, b, n, rank, xn, L::X_STRIDE,
                                                  weights, 0);
        __syncthreads();
''', '''        __syncwarp();
        TL(3);
        project<D, CLUSTER, RESIDENT, 4 * L::OWN>(p, proj, vectors, b, n, rank, xn, L::X_STRIDE,
                                                  weights, 0);
        __syncthreads();
        TL(4);
''')
rep('''        attend<D, CLUSTER, RESIDENT>(proj, kept, probs, gathered, partner, rank, S, p.H);
''', '''        TL(5);
        attend<D, CLUSTER, RESIDENT>(proj, kept, probs, gathered, partner, rank, S, p.H);
        TL(6);
''')
rep('''            cg::this_cluster().sync(); /* both halves of O are in both blocks */
''', '''            cg::this_cluster().sync(); /* both halves of O are in both blocks */
            TL(7);
''')
rep('''    } else {
        const int per_matrix = D / FUSED_TILE_ROWS;''', '''        __syncthreads();
        TL(8);
        if (threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x - 1) &&
            (launch == 0 || launch == 30))
            printf("timeline D=%d CL=%d launch %llu block %u cycles: X+vectors in %lld | LN %lld | "
                   "own W rows in %lld | QKVG %lld | cluster wait %lld | attention %lld | "
                   "O sync %lld | out %lld | total %lld\\n", D, CLUSTER, launch, blockIdx.x,
                   tl[1] - tl[0], tl[2] - tl[1], tl[3] - tl[2], tl[4] - tl[3], tl[5] - tl[4],
                   tl[6] - tl[5], CLUSTER > 1 ? tl[7] - tl[6] : 0,
                   tl[8] - (CLUSTER > 1 ? tl[7] : tl[6]), tl[8] - tl[0]);
        if (threadIdx.x == 0 && blockIdx.x == 0)
            atomicAdd(&timeline_launches, 1ull);
    } else {
        const int per_matrix = D / FUSED_TILE_ROWS;''')
open(sys.argv[1], 'w').write(s)
