// Blockwise max-pooling, one output cell per block, blocks spread over the CPU threads.
#include "kernels/pooled_map.h"

#include "error.h"
#include "kernels/parallel.h"

namespace attnlab::kernels {

template <class T>
Matrix<T> maxPool(const Matrix<T>& map, int maxRows, int maxCols) {
    if (maxRows < 1 || maxCols < 1) throw InputError("pooled map: size must be at least 1 x 1");
    const Eigen::Index rows = map.rows(), cols = map.cols();
    const Eigen::Index bh = (rows + maxRows - 1) / maxRows, bw = (cols + maxCols - 1) / maxCols;
    if (bh <= 1 && bw <= 1) return map;
    const Eigen::Index outRows = (rows + bh - 1) / bh, outCols = (cols + bw - 1) / bw;
    Matrix<T> pooled(outRows, outCols);
    parallelFor(long(outCols), [&](long j) {
        const Eigen::Index c0 = j * bw, w = std::min(bw, cols - c0);
        for (Eigen::Index i = 0; i < outRows; ++i) {
            const Eigen::Index r0 = i * bh;
            pooled(i, j) = map.block(r0, c0, std::min(bh, rows - r0), w).maxCoeff();
        }
    });
    return pooled;
}

template Matrix<float> maxPool<float>(const Matrix<float>&, int, int);
template Matrix<double> maxPool<double>(const Matrix<double>&, int, int);

} // namespace attnlab::kernels
