# notes/msa-device/timeline_mc.py OUT.cu - writes a copy of chapters/06-fused/fused.cu with
# clock64() marks at the phase boundaries of fused_multicast; thread 0 of the first and last
# block prints them (the check launch and the 30th launch). Diagnostic only; mc.sh runs it.
import sys
s = open(sys.argv[2] if len(sys.argv) > 2 else 'chapters/06-fused/fused.cu').read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old[:70]
    s = s.replace(old, new)
rep('#define FUSED_THREADS 256', '''#define FUSED_THREADS 256
__device__ unsigned long long timeline_launches;
#define TL(k) do { if (threadIdx.x == 0) tl[k] = clock64(); } while (0)''')
rep('barrier_pair = barrier + 8 * BARRIER_PAIR;\n',
    'barrier_pair = barrier + 8 * BARRIER_PAIR;\n    long long tl[10] = {0}; TL(0);\n'
    '    const unsigned long long launch = timeline_launches;\n')
rep('''        cg::this_cluster().barrier_wait();   /* "and so are everyone's" */
    }
''', '''        cg::this_cluster().barrier_wait();   /* "and so are everyone's" */
    }
    TL(1);
''')
rep('''    mbarrier_wait(barrier_x);
''', '''    mbarrier_wait(barrier_x);
    TL(2);
''')
rep('''    layer_norm_rows<D>(xn, L::X_STRIDE, S, vectors, vectors + D);
    __syncthreads();

    mbarrier_wait(barrier_w);
    if constexpr (SHARE == 1) {
        copy_async_wait<1>(); /* this warp's rows of W_q, W_k, W_v, W_g */
        __syncwarp();
    }
''', '''    layer_norm_rows<D>(xn, L::X_STRIDE, S, vectors, vectors + D);
    __syncthreads();
    TL(3);
    mbarrier_wait(barrier_w);
    if constexpr (SHARE == 1) {
        copy_async_wait<1>(); /* this warp's rows of W_q, W_k, W_v, W_g */
        __syncwarp();
    }
    TL(4);
''')
rep('''weights, 0);
    __syncthreads();

    unsigned partner_gathered''', '''weights, 0);
    __syncthreads();
    TL(5);
    unsigned partner_gathered''')
rep('''partner_barrier, split, S, p.H);
    mbarrier_wait(barrier_o);''', '''partner_barrier, split, S, p.H);
    TL(6);
    mbarrier_wait(barrier_o);''')
rep('''    mbarrier_wait(barrier_pair);    /* and the partner's */
''', '''    mbarrier_wait(barrier_pair);    /* and the partner's */
    TL(7);
''')
rep('''                                        weights + 4 * L::OWN * L::W_STRIDE, 4 * L::OWN);
}

/* How many clusters''', '''                                        weights + 4 * L::OWN * L::W_STRIDE, 4 * L::OWN);
    __syncthreads();
    TL(8);
    if (threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x - 1) &&
        (launch == 0 || launch == 30))
        printf("timeline D=%d SPLIT=%d SHARE=%d launch %llu block %u cycles: issue+cluster %lld | "
               "X in %lld | LN %lld | W in %lld | QKVG %lld | attention %lld | O in %lld | "
               "out %lld | total %lld\\n", D, SPLIT, SHARE, launch, blockIdx.x, tl[1] - tl[0],
               tl[2] - tl[1], tl[3] - tl[2], tl[4] - tl[3], tl[5] - tl[4], tl[6] - tl[5],
               tl[7] - tl[6], tl[8] - tl[7], tl[8] - tl[0]);
    if (threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(&timeline_launches, 1ull);
}

/* How many clusters''')
open(sys.argv[1], 'w').write(s)
