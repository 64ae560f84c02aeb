// Comparisons of our logits and hidden states with the transformers goldens: max/mean absolute
// error, the first diverging hidden-state layer, and a tie-aware top-k agreement.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gemmad::model::testing {

struct ErrorStats {
  double max_abs = 0, mean_abs = 0;
  int64_t worst_row = -1;
};

inline ErrorStats Compare(const float* got, const float* want, int64_t rows, int64_t cols) {
  ErrorStats s;
  double sum = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const double d = std::fabs(static_cast<double>(got[r * cols + c]) - want[r * cols + c]);
      sum += d;
      if (d > s.max_abs) {
        s.max_abs = d;
        s.worst_row = r;
      }
    }
  }
  s.mean_abs = rows * cols > 0 ? sum / static_cast<double>(rows * cols) : 0.0;
  return s;
}

// The k-th largest value of a row.
inline float KthLargest(const float* row, int64_t n, int k) {
  std::vector<float> v(row, row + n);
  std::nth_element(v.begin(), v.begin() + (k - 1), v.end(), std::greater<float>());
  return v[static_cast<size_t>(k - 1)];
}

// The smallest delta for which two rows agree on their top k up to near-ties: every token in our
// top k is within delta of the reference's k-th value, and vice versa. 0 = the same top-k set
// (exact ties included).
inline double TopKDisagreement(const float* got, const float* want, int64_t n, int k) {
  const float gk = KthLargest(got, n, k), wk = KthLargest(want, n, k);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (got[i] >= gk) worst = std::max(worst, static_cast<double>(wk) - want[i]);
    if (want[i] >= wk) worst = std::max(worst, static_cast<double>(gk) - got[i]);
  }
  return worst;
}

// log_softmax of one row, in double.
inline std::vector<double> LogSoftmax(const float* row, int64_t n) {
  double m = *std::max_element(row, row + n), sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(row[i] - m);
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = row[i] - m - std::log(sum);
  return out;
}

// Mean over rows of KL(softmax(a) || softmax(b)) for [rows, cols] logits, in double, and the
// fraction of rows whose argmax agrees.
struct KlStats {
  double mean_kl = 0, top1 = 0;
};
inline KlStats MeanKlAndTop1(const float* a, const float* b, int64_t rows, int64_t cols) {
  KlStats s;
  for (int64_t t = 0; t < rows; ++t) {
    const float* x = a + t * cols;
    const float* y = b + t * cols;
    const std::vector<double> lx = LogSoftmax(x, cols), ly = LogSoftmax(y, cols);
    for (int64_t i = 0; i < cols; ++i) s.mean_kl += std::exp(lx[i]) * (lx[i] - ly[i]);
    s.top1 += (std::max_element(x, x + cols) - x) == (std::max_element(y, y + cols) - y) ? 1.0 : 0.0;
  }
  if (rows > 0) {
    s.mean_kl /= static_cast<double>(rows);
    s.top1 /= static_cast<double>(rows);
  }
  return s;
}

}  // namespace gemmad::model::testing
