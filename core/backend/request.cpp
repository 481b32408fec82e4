// SPDX-License-Identifier: GPL-3.0-or-later
// The request a head task makes of a device.
#include "core/backend/request.h"

#include "core/backend/mask_program.h"

namespace attnlab {

template <class T>
HeadRequest headRequest(const HeadTask<T>& task) {
    HeadRequest r;
    r.mixer = task.mixer.kind;
    r.precision = precisionOf<T>();
    r.n = int(task.q.rows());
    r.p = int(task.q.cols());
    r.pv = int(task.v.cols());
    r.tile = task.mixer.kind == MixerSpec::Kind::Ssm ? 0 : task.mixer.tile;
    r.keepMaps = task.keepMaps;
    r.hasBias = task.bias && task.mixer.kind != MixerSpec::Kind::Ssm;
    r.maskStackDepth = maskStackDepth(task.mask);
    return r;
}

template HeadRequest headRequest<float>(const HeadTask<float>&);
template HeadRequest headRequest<double>(const HeadTask<double>&);
template HeadRequest headRequest<Rational>(const HeadTask<Rational>&);

} // namespace attnlab
