package sim

import (
	"fmt"

	"github.com/schedlab/schedlab/sdk"
)

// placeUnits checks or chooses the placement of job i's pieces on the
// divided resources of the cluster d starts it on, and takes them from the
// free units. It changes nothing when it fails.
func (e *engine) placeUnits(i int32, d sdk.Decision) ([]int32, error) {
	c := &e.cfg.Platform.Clusters[d.Cluster]
	j := &e.jobs[i]
	nu := c.UnitCount()
	if d.Units != nil && len(d.Units) != nu {
		return nil, fmt.Errorf("start job id %d on cluster %q: placement of %d units, the cluster has %d", j.ID, c.Name, len(d.Units), nu)
	}
	if nu == 0 {
		return nil, nil
	}
	pl := e.place[int(i)*e.stride : int(i)*e.stride+nu]
	free := e.state.FreeUnits[d.Cluster]
	req := e.reqOf(i)
	off := 0
	for _, u := range c.Units {
		k := len(u.Capacity)
		n, size, _ := u.Pieces(req) // checked when the jobs were loaded
		f, dst := free[off:off+k], pl[off:off+k]
		name := e.cfg.Platform.Resources[u.Resource]
		if d.Units == nil {
			if !sdk.PlacePieces(dst, f, n, size) {
				clear(pl)
				return nil, fmt.Errorf("start job id %d on cluster %q: its %d pieces of %d %s do not fit in the free units %v", j.ID, c.Name, n, size, name, f)
			}
		} else {
			var sum int64
			for x, cnt := range d.Units[off : off+k] {
				if cnt < 0 || int64(cnt)*size > f[x] {
					clear(pl)
					return nil, fmt.Errorf("start job id %d on cluster %q: %d pieces of %d %s on unit %d, which has %d free", j.ID, c.Name, cnt, size, name, x, f[x])
				}
				sum += int64(cnt)
				dst[x] = cnt
			}
			if sum != n {
				clear(pl)
				return nil, fmt.Errorf("start job id %d on cluster %q: placement of %d pieces of %s, the job has %d", j.ID, c.Name, sum, name, n)
			}
		}
		off += k
	}
	off = 0
	for _, u := range c.Units {
		_, size, _ := u.Pieces(req)
		for x := range u.Capacity {
			free[off+x] -= int64(pl[off+x]) * size
		}
		off += len(u.Capacity)
	}
	return pl, nil
}

// releaseUnits gives job i's pieces back to the units of cluster c.
func (e *engine) releaseUnits(i int32, c int) {
	cl := &e.cfg.Platform.Clusters[c]
	pl := e.place[int(i)*e.stride:]
	free := e.state.FreeUnits[c]
	req := e.reqOf(i)
	off := 0
	for _, u := range cl.Units {
		_, size, _ := u.Pieces(req)
		for x := range u.Capacity {
			free[off+x] += int64(pl[off+x]) * size
		}
		off += len(u.Capacity)
	}
}

// fitsCluster reports whether a request fits on an empty cluster: its
// capacity and, on divided resources, its units (whose Pieces errors the
// caller has checked).
func fitsCluster(req sdk.Vector, c *sdk.Cluster) bool {
	if !req.Fits(c.Capacity) {
		return false
	}
	for _, u := range c.Units {
		pieces, size, _ := u.Pieces(req)
		if !sdk.PiecesFit(u.Capacity, pieces, size) {
			return false
		}
	}
	return true
}
