// The search index's hot loops as native code, for x86-64 CPUs with AVX2 or AVX-512BW:
// - the 2-bit fast scan of the first pass (wasm-kernel.ts, fastScanBody) and the 4-bit scoring of
//   a list (listI4Body), with the same integer sums and the same float steps, so every score is
//   bit-identical to the WebAssembly kernel's. WebAssembly has 128-bit vectors only: one table
//   lookup (pshufb) serves one pair of dimensions of 16 rows there, four here with AVX-512;
// - the XOR of a keystream into sealed float rows (row-cipher.ts), which JavaScript does a word at
//   a time;
// - asking Linux to back the index's memory with 2 MiB pages (huge-pages.ts).
//
// Memory: for the scans, the index's shared WebAssembly memory, passed as a Uint8Array over its
// buffer; every other argument is an offset into it, as for the WebAssembly kernel. Built by
// scripts/build-native.js with the compiler and Node's own headers (no download); loaded by
// server/search/native-kernels.ts, which falls back to the WebAssembly kernel where it is missing.
#include <node_api.h>
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

// Each cache line of the codes is prefetched this many bytes ahead of its use. The hardware
// prefetcher stops at page boundaries (a block is a 4 KiB page at 512-d), and without this the scan
// of a gallery held in memory ran at about two thirds of what loads alone reach.
#ifndef PREFETCH
#define PREFETCH 4096
#endif

typedef struct {
  const uint8_t *lut;
  const uint8_t *codes;
  const float *scales;
  const float *errs;
  uint8_t *out;
  uint32_t start, end, pairs;
  float thr, eScale;
} scan_args;

// The end of a block: `even` and `odd` hold, per 16-bit word w, the unsigned sums (offset by
// `bias`) of rows 2w and 2w + 1 of one half of the block (rows 16h .. 16h + 15). Each row's score is
// then computed exactly as the kernel does: f32(sum - bias) * scale, plus eScale * err, each step
// rounded to f32 (separate multiply and add: no fused multiply-add), kept when >= thr (NaN never).
__attribute__((target("avx2")))
static inline uint32_t emit_half(const scan_args *a, uint32_t row, __m128i even, __m128i odd, int32_t bias, uint32_t n) {
  const __m256i vb = _mm256_set1_epi32(bias);
  const __m256 thr = _mm256_set1_ps(a->thr);
  const __m256 es = _mm256_set1_ps(a->eScale);
  const __m128i rowsOf[2] = {_mm_unpacklo_epi16(even, odd), _mm_unpackhi_epi16(even, odd)};
  for (int q = 0; q < 2; q++) {
    uint32_t r0 = row + 8 * q;
    __m256 s = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu16_epi32(rowsOf[q]), vb));
    s = _mm256_mul_ps(s, _mm256_loadu_ps(a->scales + r0));
    s = _mm256_add_ps(s, _mm256_mul_ps(_mm256_loadu_ps(a->errs + r0), es));
    unsigned keep = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(s, thr, _CMP_GE_OQ));
    if (keep) {
      float v[8];
      _mm256_storeu_ps(v, s);
      for (int i = 0; i < 8; i++)
        if (keep & (1u << i)) {
          int32_t rr = (int32_t)(r0 + i);
          memcpy(a->out + 8 * n, &rr, 4);
          memcpy(a->out + 8 * n + 4, &v[i], 4);
          n++;
        }
    }
  }
  return n;
}

__attribute__((target("avx512bw,avx512f")))
static uint32_t scan_avx512(const scan_args *a) {
  const uint32_t blockBytes = a->pairs * 16;
  const uint32_t groups = a->pairs / 4; // 64 bytes: four pairs, one per 128-bit lane
  const __m512i mask = _mm512_set1_epi8(0x0f);
  const __m512i sign = _mm512_set1_epi8((char)0x80);
  const uint8_t *p = a->codes + (size_t)(a->start >> 5) * blockBytes;
  uint32_t n = 0;
  for (uint32_t row = a->start; row < a->end; row += 32, p += blockBytes) {
    // Per lane (pair j mod 4) and byte (row): the sum over that lane's pairs, offset to unsigned.
    // Four groups are added in int8 (entries within +-31), then widened two rows to a 16-bit lane:
    // A holds even bytes + 256 x odd bytes (mod 2^16), B the odd bytes.
    __m512i aLo = _mm512_setzero_si512(), bLo = aLo, aHi = aLo, bHi = aLo;
    uint32_t chunks = 0;
    for (uint32_t g = 0; g < groups; g += 4) {
      __m512i lo = _mm512_setzero_si512(), hi = lo;
      uint32_t gEnd = g + 4 < groups ? g + 4 : groups;
      for (uint32_t k = g; k < gEnd; k++) {
        _mm_prefetch((const char *)(p + PREFETCH + 64 * k), _MM_HINT_T0);
        __m512i c = _mm512_loadu_si512((const void *)(p + 64 * k));
        __m512i t = _mm512_loadu_si512((const void *)(a->lut + 64 * k));
        lo = _mm512_add_epi8(lo, _mm512_shuffle_epi8(t, _mm512_and_si512(c, mask)));
        hi = _mm512_add_epi8(hi, _mm512_shuffle_epi8(t, _mm512_and_si512(_mm512_srli_epi16(c, 4), mask)));
      }
      lo = _mm512_xor_si512(lo, sign);
      hi = _mm512_xor_si512(hi, sign);
      aLo = _mm512_add_epi16(aLo, lo);
      bLo = _mm512_add_epi16(bLo, _mm512_srli_epi16(lo, 8));
      aHi = _mm512_add_epi16(aHi, hi);
      bHi = _mm512_add_epi16(bHi, _mm512_srli_epi16(hi, 8));
      chunks++;
    }
    // Per half: even rows = A - (B << 8), odd rows = B, then the four lanes (pairs mod 4) added
    // (at most 1024 pairs x 255 / 4 per lane: the 16-bit sums cannot wrap).
    const int32_t bias = 128 * (int32_t)chunks * 4;
    const __m512i halves[2][2] = {{aLo, bLo}, {aHi, bHi}};
    for (int h = 0; h < 2; h++) {
      __m512i ev = _mm512_sub_epi16(halves[h][0], _mm512_slli_epi16(halves[h][1], 8));
      __m512i od = halves[h][1];
      __m256i ev2 = _mm256_add_epi16(_mm512_castsi512_si256(ev), _mm512_extracti64x4_epi64(ev, 1));
      __m256i od2 = _mm256_add_epi16(_mm512_castsi512_si256(od), _mm512_extracti64x4_epi64(od, 1));
      __m128i e = _mm_add_epi16(_mm256_castsi256_si128(ev2), _mm256_extracti128_si256(ev2, 1));
      __m128i o = _mm_add_epi16(_mm256_castsi256_si128(od2), _mm256_extracti128_si256(od2, 1));
      n = emit_half(a, row + 16 * h, e, o, bias, n);
    }
  }
  return n;
}

// The same scan as scan_avx512, two pairs per 256-bit vector: for CPUs without AVX-512.
__attribute__((target("avx2")))
static uint32_t scan_avx2(const scan_args *a) {
  const uint32_t blockBytes = a->pairs * 16;
  const uint32_t duos = a->pairs / 2; // 32 bytes: two pairs, one per 128-bit lane
  const __m256i mask = _mm256_set1_epi8(0x0f);
  const __m256i sign = _mm256_set1_epi8((char)0x80);
  const uint8_t *p = a->codes + (size_t)(a->start >> 5) * blockBytes;
  uint32_t n = 0;
  for (uint32_t row = a->start; row < a->end; row += 32, p += blockBytes) {
    __m256i aLo = _mm256_setzero_si256(), bLo = aLo, aHi = aLo, bHi = aLo;
    uint32_t chunks = 0;
    for (uint32_t d = 0; d < duos; d += 4) {
      __m256i lo = _mm256_setzero_si256(), hi = lo;
      uint32_t dEnd = d + 4 < duos ? d + 4 : duos;
      for (uint32_t k = d; k < dEnd; k++) {
        if (!(k & 1)) _mm_prefetch((const char *)(p + PREFETCH + 32 * k), _MM_HINT_T0);
        __m256i c = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
        __m256i t = _mm256_loadu_si256((const __m256i *)(a->lut + 32 * k));
        lo = _mm256_add_epi8(lo, _mm256_shuffle_epi8(t, _mm256_and_si256(c, mask)));
        hi = _mm256_add_epi8(hi, _mm256_shuffle_epi8(t, _mm256_and_si256(_mm256_srli_epi16(c, 4), mask)));
      }
      lo = _mm256_xor_si256(lo, sign);
      hi = _mm256_xor_si256(hi, sign);
      aLo = _mm256_add_epi16(aLo, lo);
      bLo = _mm256_add_epi16(bLo, _mm256_srli_epi16(lo, 8));
      aHi = _mm256_add_epi16(aHi, hi);
      bHi = _mm256_add_epi16(bHi, _mm256_srli_epi16(hi, 8));
      chunks++;
    }
    const int32_t bias = 128 * (int32_t)chunks * 2;
    const __m256i halves[2][2] = {{aLo, bLo}, {aHi, bHi}};
    for (int h = 0; h < 2; h++) {
      __m256i ev = _mm256_sub_epi16(halves[h][0], _mm256_slli_epi16(halves[h][1], 8));
      __m256i od = halves[h][1];
      __m128i e = _mm_add_epi16(_mm256_castsi256_si128(ev), _mm256_extracti128_si256(ev, 1));
      __m128i o = _mm_add_epi16(_mm256_castsi256_si128(od), _mm256_extracti128_si256(od, 1));
      n = emit_half(a, row + 16 * h, e, o, bias, n);
    }
  }
  return n;
}

// Rows of a list whose cache lines are prefetched ahead of their scoring: the rows are scattered,
// so no hardware prefetcher fetches them.
#define LIST_AHEAD 8

// scoreI4List of the WebAssembly kernel (listI4Body): out[i] = f32(dot of row list[i]'s 4-bit codes
// with the int16 probe) * scale, the same exact integer sum. A row is stride / 2 bytes: per 32
// dimensions, 16 bytes read as eight 16-bit words of four nibbles, nibble k of word i being
// dimension 8k + i, signed. The probe is first laid out per nibble (qk[k]: two chunks per 256-bit
// vector), so that each nibble multiplies a contiguous vector.
__attribute__((target("avx2")))
static void score_list_avx2(const uint8_t *q, const uint8_t *codes, const float *scales, const int32_t *list,
                            uint32_t count, float *out, uint32_t stride) {
  const uint32_t rowBytes = stride / 2;
  const uint32_t duos = stride / 64; // 32 bytes of codes: two chunks of 32 dimensions
  int16_t qk[4][2048];
  const int16_t *probe = (const int16_t *)q;
  for (uint32_t c = 0; c < stride / 32; c++)
    for (int k = 0; k < 4; k++) memcpy(&qk[k][8 * c], probe + 32 * c + 8 * k, 16);
  for (uint32_t i = 0; i < count; i++) {
    uint32_t ahead = i + LIST_AHEAD < count ? i + LIST_AHEAD : count - 1;
    const uint8_t *pa = codes + (size_t)(uint32_t)list[ahead] * rowBytes;
    for (uint32_t at = 0; at < rowBytes; at += 64) _mm_prefetch((const char *)(pa + at), _MM_HINT_T0);
    const uint32_t row = (uint32_t)list[i];
    const uint8_t *p = codes + (size_t)row * rowBytes;
    __m256i acc = _mm256_setzero_si256();
    for (uint32_t d = 0; d < duos; d++) {
      __m256i w = _mm256_loadu_si256((const __m256i *)(p + 32 * d));
      __m256i n0 = _mm256_srai_epi16(_mm256_slli_epi16(w, 12), 12);
      __m256i n1 = _mm256_srai_epi16(_mm256_slli_epi16(w, 8), 12);
      __m256i n2 = _mm256_srai_epi16(_mm256_slli_epi16(w, 4), 12);
      __m256i n3 = _mm256_srai_epi16(w, 12);
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(n0, _mm256_loadu_si256((const __m256i *)&qk[0][16 * d])));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(n1, _mm256_loadu_si256((const __m256i *)&qk[1][16 * d])));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(n2, _mm256_loadu_si256((const __m256i *)&qk[2][16 * d])));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(n3, _mm256_loadu_si256((const __m256i *)&qk[3][16 * d])));
    }
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
    volatile float v = (float)_mm_cvtsi128_si32(s4) * scales[row];
    out[i] = v;
  }
}

typedef uint32_t (*scan_fn)(const scan_args *);

// The widest scan this CPU runs, chosen once when the module loads.
static scan_fn best;

static scan_fn pick(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f")) return scan_avx512;
  if (__builtin_cpu_supports("avx2")) return scan_avx2;
  return NULL;
}

static const char *isa_name(scan_fn f) {
  return f == scan_avx512 ? "avx512bw" : f == scan_avx2 ? "avx2" : "none";
}

#define CHECK(call) \
  do { if ((call) != napi_ok) { napi_throw_error(env, NULL, "search-kernels: argumento no válido"); return NULL; } } while (0)

static int arg_u32(napi_env env, napi_value v, uint32_t *out) { return napi_get_value_uint32(env, v, out) == napi_ok; }

// A Uint8Array argument's bytes (the index's memory, a row, a keystream); 0 for anything else.
static int arg_bytes(napi_env env, napi_value v, uint8_t **data, size_t *length) {
  napi_typedarray_type type;
  void *p;
  if (napi_get_typedarray_info(env, v, &type, length, &p, NULL, NULL) != napi_ok || type != napi_uint8_array) return 0;
  *data = (uint8_t *)p;
  return 1;
}

static int arg_f32(napi_env env, napi_value v, float *out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return 0;
  *out = (float)d;
  return 1;
}

// scan(memory: Uint8Array, isa, pairs, lut, codes, scales, start, end, thr, out, errs, eScale) -> count
static napi_value scan(napi_env env, napi_callback_info info) {
  size_t argc = 12;
  napi_value argv[12];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 12) {
    napi_throw_error(env, NULL, "search-kernels: se esperaban 12 argumentos");
    return NULL;
  }
  uint8_t *base;
  size_t length;
  uint32_t isa, pairs, lut, codes, scales, out, errs;
  scan_args a;
  if (!arg_bytes(env, argv[0], &base, &length) || !arg_u32(env, argv[1], &isa) || !arg_u32(env, argv[2], &pairs) ||
      !arg_u32(env, argv[3], &lut) || !arg_u32(env, argv[4], &codes) || !arg_u32(env, argv[5], &scales) ||
      !arg_u32(env, argv[6], &a.start) || !arg_u32(env, argv[7], &a.end) || !arg_f32(env, argv[8], &a.thr) ||
      !arg_u32(env, argv[9], &out) || !arg_u32(env, argv[10], &errs) || !arg_f32(env, argv[11], &a.eScale)) {
    napi_throw_error(env, NULL, "search-kernels: argumento no válido");
    return NULL;
  }
  scan_fn f = isa == 2 ? scan_avx512 : isa == 1 ? scan_avx2 : NULL;
  if (!f || (f == scan_avx512 && best != scan_avx512) || (f == scan_avx2 && !best)) {
    napi_throw_error(env, NULL, "search-kernels: el procesador no tiene esas instrucciones");
    return NULL;
  }
  // Everything read or written must lie inside the memory: a wrong offset is an error, not a crash.
  // Rows are scanned a block of 32 at a time, the last block whole (as the WebAssembly kernel does).
  uint64_t blocks = a.end > a.start ? (uint64_t)(a.end - a.start + 31) >> 5 : 0;
  uint64_t rowsEnd = (uint64_t)a.start + 32 * blocks;
  uint64_t len = length;
  if (pairs == 0 || pairs % 8 != 0 || pairs > 1024 || (a.start & 31) || rowsEnd > 0xffffffffull ||
      (uint64_t)lut + 16ull * pairs > len || (uint64_t)codes + (rowsEnd >> 5) * 16ull * pairs > len ||
      (uint64_t)scales + 4 * rowsEnd > len || (uint64_t)errs + 4 * rowsEnd > len ||
      (uint64_t)out + 8 * 32 * blocks > len) {
    napi_throw_range_error(env, NULL, "search-kernels: fuera de la memoria del índice");
    return NULL;
  }
  a.end = (uint32_t)rowsEnd;
  a.pairs = pairs;
  a.lut = base + lut;
  a.codes = base + codes;
  a.scales = (const float *)(base + scales);
  a.errs = (const float *)(base + errs);
  a.out = base + out;
  uint32_t n = blocks ? f(&a) : 0;
  napi_value result;
  CHECK(napi_create_uint32(env, n, &result));
  return result;
}

// scoreList(memory: Uint8Array, stride, q, codes, scales, list, count, out): the 4-bit score of each
// row of a list (i32 rows at `list`, f32 scores to `out`), as the WebAssembly kernel's scoreI4List.
static napi_value score_list(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *base;
  size_t length;
  uint32_t v[7];
  if (argc != 8 || !arg_bytes(env, argv[0], &base, &length)) {
    napi_throw_error(env, NULL, "search-kernels: argumento no válido");
    return NULL;
  }
  for (int i = 0; i < 7; i++)
    if (!arg_u32(env, argv[i + 1], &v[i])) {
      napi_throw_error(env, NULL, "search-kernels: argumento no válido");
      return NULL;
    }
  uint32_t stride = v[0], q = v[1], codes = v[2], scales = v[3], list = v[4], count = v[5], out = v[6];
  uint64_t len = length;
  if (!best) {
    napi_throw_error(env, NULL, "search-kernels: el procesador no tiene esas instrucciones");
    return NULL;
  }
  if (stride == 0 || stride % 64 != 0 || stride > 8192 || (uint64_t)q + 2ull * stride > len ||
      (uint64_t)list + 4ull * count > len || (uint64_t)out + 4ull * count > len || (q & 1) || (list & 3) || (out & 3) ||
      (scales & 3)) {
    napi_throw_range_error(env, NULL, "search-kernels: fuera de la memoria del índice");
    return NULL;
  }
  const int32_t *rows = (const int32_t *)(base + list);
  for (uint32_t i = 0; i < count; i++) {
    uint64_t row = (uint32_t)rows[i];
    if (rows[i] < 0 || (uint64_t)codes + (row + 1) * (stride / 2) > len || (uint64_t)scales + 4 * (row + 1) > len) {
      napi_throw_range_error(env, NULL, "search-kernels: fila fuera de la memoria del índice");
      return NULL;
    }
  }
  score_list_avx2(base + q, base + codes, (const float *)(base + scales), rows, count, (float *)(base + out), stride);
  return NULL;
}

// xorInto(dst: Uint8Array, src: Uint8Array, srcOffset): dst[i] ^= src[srcOffset + i] for every byte
// of dst (a keystream applied to a sealed row, row-cipher.ts).
static napi_value xor_into(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *dst, *stream;
  size_t n1, n2;
  uint32_t off;
  if (argc != 3 || !arg_bytes(env, argv[0], &dst, &n1) || !arg_bytes(env, argv[1], &stream, &n2) ||
      !arg_u32(env, argv[2], &off)) {
    napi_throw_error(env, NULL, "search-kernels: argumento no válido");
    return NULL;
  }
  if ((uint64_t)off + n1 > n2) {
    napi_throw_range_error(env, NULL, "search-kernels: la clave de flujo es más corta que la fila");
    return NULL;
  }
  const uint8_t *src = stream + off;
  size_t i = 0;
  for (; i + 8 <= n1; i += 8) {
    uint64_t a, b;
    memcpy(&a, dst + i, 8);
    memcpy(&b, src + i, 8);
    a ^= b;
    memcpy(dst + i, &a, 8);
  }
  for (; i < n1; i++) dst[i] ^= src[i];
  return NULL;
}

// adviseHugePages(memory: Uint8Array, huge: boolean) -> bytes: madvise(MADV_HUGEPAGE) over the whole
// 2 MiB pages inside the memory, so that the pages the index touches next are huge where the
// kernel's transparent huge pages are set to `madvise` (Debian's default; `always` needs no advice).
// A scan of a 4 KiB-paged gallery takes a page walk every 4 KiB, and inside a VM each walk is two.
// `huge` false: MADV_NOHUGEPAGE, 4 KiB pages even where they are `always`. Returns the bytes
// advised (0: no whole 2 MiB page inside), or -1 where Linux has no such advice or refused it (the
// memory is unchanged then).
static napi_value advise_huge_pages(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *data;
  size_t length;
  bool huge;
  if (argc != 2 || !arg_bytes(env, argv[0], &data, &length) || napi_get_value_bool(env, argv[1], &huge) != napi_ok) {
    napi_throw_error(env, NULL, "search-kernels: argumento no válido");
    return NULL;
  }
  double advised = -1;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  const uintptr_t page = (uintptr_t)2 << 20;
  uintptr_t from = ((uintptr_t)data + page - 1) & ~(page - 1);
  uintptr_t to = ((uintptr_t)data + length) & ~(page - 1);
  if (to <= from) advised = 0;
  else if (madvise((void *)from, to - from, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0) advised = (double)(to - from);
#else
  (void)huge;
#endif
  napi_value result;
  CHECK(napi_create_double(env, advised, &result));
  return result;
}

// isa() -> 2 (AVX-512BW), 1 (AVX2) or 0 (neither: use the WebAssembly kernel), and its name.
static napi_value isa(napi_env env, napi_callback_info info) {
  (void)info;
  scan_fn f = best;
  napi_value obj, level, name;
  CHECK(napi_create_object(env, &obj));
  CHECK(napi_create_uint32(env, f == scan_avx512 ? 2 : f == scan_avx2 ? 1 : 0, &level));
  CHECK(napi_create_string_utf8(env, isa_name(f), NAPI_AUTO_LENGTH, &name));
  CHECK(napi_set_named_property(env, obj, "level", level));
  CHECK(napi_set_named_property(env, obj, "name", name));
  return obj;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  best = pick();
  napi_value fn;
  if (napi_create_function(env, "scan", NAPI_AUTO_LENGTH, scan, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "scan", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "scoreList", NAPI_AUTO_LENGTH, score_list, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "scoreList", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "xorInto", NAPI_AUTO_LENGTH, xor_into, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "xorInto", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "adviseHugePages", NAPI_AUTO_LENGTH, advise_huge_pages, NULL, &fn) != napi_ok)
    return NULL;
  if (napi_set_named_property(env, exports, "adviseHugePages", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "isa", NAPI_AUTO_LENGTH, isa, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "isa", fn) != napi_ok) return NULL;
  return exports;
}
