package backfill

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// The fair-share factor of Slurm's priority/multifactor plugin, in its two
// algorithms: classic (2^(-UE/S) with effective usage UE,
// doc/html/classic_fair_share.shtml) and Fair Tree (users ranked by a
// depth-first walk of the association tree sorted by level fair share S/U,
// doc/html/fair_tree.shtml). Sources, formulas and our choices are in
// docs/policies.md ("multifactor").

// fsNode is an association: an account or a user.
type fsNode struct {
	name   string // the account's name; a user's is its id
	user   int32  // the trace's user id, for a user
	isUser bool
	shares int64
	// useParent is Slurm's FairShare=parent: the node takes its fair
	// share from its fs parent, and its shares count for nothing.
	useParent bool
	parent    int // index in fsTree.nodes; -1 for the root
	kids      []int
	// fsParent is the first ancestor without FairShare=parent (Slurm's
	// fs_assoc_ptr), and fsKids the nodes whose fsParent this node is
	// (Slurm's children_list): a FairShare=parent account's children are
	// its fs parent's.
	fsParent int
	fsKids   []int
	// levelShares is the sum of the shares of the node and its fs
	// siblings (FairShare=parent ones counting the shares of their own
	// fs kids, which is 0: theirs are their fs parent's).
	levelShares int64
	// usage is the node's decayed raw usage (processor-seconds), the sum
	// of its users', as of the last calculation.
	usage float64
	// The classic algorithm's normalized shares (the product along the
	// path of shares / level shares) and effective usage.
	sharesNorm, efctv float64
	// levelFS is Fair Tree's S/U at the node's level.
	levelFS float64
	// fs is a user's fair-share factor, as of the last calculation.
	fs float64
	// order is fsKids as Fair Tree last sorted them (an incremental
	// tree's), the start of the next sort: usage moves little between
	// two calculations, so the order is mostly sorted already.
	order []int
	// at is the calculation an incremental classic tree last computed
	// the node's sharesNorm, efctv and fs for (fsTree.epoch).
	at uint64
}

// noVal is Slurm's NO_VAL, the level fair share its Fair Tree leaves on
// an account with FairShare=parent (which sorts it after the users and
// accounts of infinite LF and before every other).
const noVal = 0xfffffffe

// fsTree is the association tree with the usage charged to it.
type fsTree struct {
	nodes []fsNode // nodes[0] is the root
	users map[int32]int
	// auto: users are not declared; each user met gets an account of its
	// own with one share (and one share in it) under the root.
	auto bool
	// stored holds each user's usage divided by scale: decaying every
	// user's usage by d is scale *= d, and charging x is stored += x/scale.
	stored []float64 // by node; users only
	scale  float64
	// fairTree selects the algorithm; damp is the classic
	// FairShareDampeningFactor.
	fairTree bool
	damp     float64
	nUsers   int
	// arena holds the sibling lists of a Fair Tree walk.
	arena []int
	// groups: an automatic tree whose accounts are the users' trace
	// groups (AutoAccounts = group), each user in the group of its first
	// job met; groupAcct is each group's account node, firstGroup each
	// user's group, multiGroup the users met with another group since.
	groups     bool
	groupAcct  map[int32]int
	firstGroup map[int32]int32
	multiGroup map[int32]bool
	// incremental selects the faster calculations of fairshare_incr.go,
	// which give the same factors: Fair Tree sorts each level from its
	// last order, and the classic factors are computed when read
	// (factor), each once per calculation. Off, calc computes every
	// factor from scratch, the reference the tests compare with.
	incremental bool
	// epoch counts the calculations, for the classic factors computed
	// when read.
	epoch uint64
}

func newAutoTree() *fsTree {
	t := &fsTree{auto: true, users: map[int32]int{}, scale: 1}
	t.nodes = []fsNode{{name: "root", parent: -1, shares: 1}}
	t.stored = []float64{0}
	return t
}

// parseAccounts reads a declared tree: a comma-separated list of entries
// under the root, each an account NAME[:SHARES](ENTRIES...) or a user
// ID[:SHARES], ID the trace's user number; SHARES defaults to 1. For
// example "A:40(B:30(1), C:10(2, 3)), D:60(E:25(4), F:35(5))".
func parseAccounts(s string) (*fsTree, error) {
	return parseAccountsWith(s, false)
}

// parseAccountsWith is parseAccounts, taking shares of 0 when zero is
// set: Slurm takes them (an association without a share of the machine);
// the Accounts parameter refuses them, as issue 36 asks, and the tests of
// Slurm's own trees need them.
func parseAccountsWith(s string, zero bool) (*fsTree, error) {
	t := &fsTree{users: map[int32]int{}, scale: 1}
	t.nodes = []fsNode{{name: "root", parent: -1, shares: 1}}
	accounts := map[string]bool{"root": true}
	pos := 0
	fail := func(format string, a ...any) error {
		return fmt.Errorf("at character %d of %q: %s", pos+1, s, fmt.Sprintf(format, a...))
	}
	skip := func() {
		for pos < len(s) && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n') {
			pos++
		}
	}
	var list func(parent int, depth int) error
	list = func(parent int, depth int) error {
		for {
			skip()
			if pos < len(s) && s[pos] == ')' && depth > 0 && len(t.nodes[parent].kids) == 0 {
				return nil // an empty account
			}
			start := pos
			for pos < len(s) && !strings.ContainsRune(":(),", rune(s[pos])) {
				pos++
			}
			name := strings.TrimSpace(s[start:pos])
			if name == "" {
				return fail("want an account or a user")
			}
			shares := int64(1)
			useParent := false
			skip()
			if pos < len(s) && s[pos] == ':' {
				pos++
				skip()
				start := pos
				for pos < len(s) && !strings.ContainsRune("(),", rune(s[pos])) {
					pos++
				}
				text := strings.TrimSpace(s[start:pos])
				v, err := strconv.ParseInt(text, 10, 64)
				switch {
				case strings.EqualFold(text, "parent"):
					useParent, v = true, 0
				case err != nil:
					pos = start
					return fail("shares of %s: %q is neither an integer nor parent", name, text)
				case v < 0 || v == 0 && !zero:
					pos = start
					return fail("shares of %s: %d; shares must be positive", name, v)
				}
				shares = v
			}
			skip()
			n := fsNode{name: name, shares: shares, useParent: useParent, parent: parent}
			if pos < len(s) && s[pos] == '(' {
				if accounts[name] {
					return fail("account %s declared twice", name)
				}
				accounts[name] = true
				pos++
				t.nodes = append(t.nodes, n)
				k := len(t.nodes) - 1
				t.nodes[parent].kids = append(t.nodes[parent].kids, k)
				if err := list(k, depth+1); err != nil {
					return err
				}
				skip()
				if pos >= len(s) || s[pos] != ')' {
					return fail("want ) closing account %s", name)
				}
				pos++
			} else {
				id, err := strconv.ParseInt(name, 10, 32)
				if err != nil {
					pos = start
					return fail("%q is neither a user (the trace's user number) nor an account (NAME:SHARES(...))", name)
				}
				if _, ok := t.users[int32(id)]; ok {
					pos = start
					return fail("user %d declared twice (schedlab gives a user one account)", id)
				}
				n.user, n.isUser = int32(id), true
				t.nodes = append(t.nodes, n)
				k := len(t.nodes) - 1
				t.nodes[parent].kids = append(t.nodes[parent].kids, k)
				t.users[int32(id)] = k
				t.nUsers++
			}
			skip()
			if pos < len(s) && s[pos] == ',' {
				pos++
				continue
			}
			return nil
		}
	}
	if err := list(0, 0); err != nil {
		return nil, err
	}
	skip()
	if pos < len(s) {
		return nil, fail("unexpected %q", s[pos])
	}
	if t.nUsers == 0 {
		return nil, fmt.Errorf("%q declares no user", s)
	}
	t.stored = make([]float64, len(t.nodes))
	t.levels()
	return t, nil
}

// levels sets each node's fs parent, fs kids and level shares, as Slurm's
// assoc_mgr does (_find_assoc_parent, _get_children_level_shares).
func (t *fsTree) levels() {
	for i := range t.nodes {
		t.nodes[i].fsKids = t.nodes[i].fsKids[:0]
	}
	for i := 1; i < len(t.nodes); i++ {
		f := t.nodes[i].parent
		for f != 0 && t.nodes[f].useParent {
			f = t.nodes[f].parent
		}
		t.nodes[i].fsParent = f
		t.nodes[f].fsKids = append(t.nodes[f].fsKids, i)
	}
	for i := range t.nodes {
		n := &t.nodes[i]
		// Nodes are only ever added, after the others: the fs kids of
		// before lead the new list, and the new ones go at the end of
		// the last order.
		if len(n.order) > len(n.fsKids) {
			n.order = n.order[:0]
		}
		n.order = append(n.order, n.fsKids[len(n.order):]...)
	}
	var level func(k int) int64
	level = func(k int) int64 {
		var sum int64
		for _, c := range t.nodes[k].fsKids {
			if t.nodes[c].useParent {
				sum += level(c)
			} else {
				sum += t.nodes[c].shares
			}
		}
		return sum
	}
	for i := range t.nodes {
		sum := level(i)
		for _, k := range t.nodes[i].fsKids {
			t.nodes[k].levelShares = sum
		}
	}
}

// The values of multifactor's AutoAccounts: the accounts of the
// automatic tree.
const (
	// AccountsUser gives every user an account of its own.
	AccountsUser = "user"
	// AccountsGroup puts every user in the account of its trace group
	// (SWF field 13), the group of its first job met.
	AccountsGroup = "group"
)

// groupAccount is the name of the account of trace group g.
func groupAccount(g int32) string { return "g" + strconv.Itoa(int(g)) }

// meet returns the node of job j's user, adding the user to an automatic
// tree: in its own account, or in its group's account when the tree's
// accounts are groups. -1 for a user a declared tree does not have.
func (t *fsTree) meet(j *sdk.Job) int {
	if !t.groups {
		return t.user(j.User)
	}
	if k, ok := t.users[j.User]; ok {
		if t.firstGroup[j.User] != j.Group && !t.multiGroup[j.User] {
			t.multiGroup[j.User] = true
		}
		return k
	}
	a, ok := t.groupAcct[j.Group]
	if !ok {
		a = t.add(fsNode{name: groupAccount(j.Group), shares: 1, parent: 0})
		t.groupAcct[j.Group] = a
	}
	k := t.add(fsNode{name: strconv.Itoa(int(j.User)), user: j.User, isUser: true, shares: 1, parent: a, fs: 1})
	t.users[j.User] = k
	t.firstGroup[j.User] = j.Group
	t.nUsers++
	t.levels()
	return k
}

// user returns the node of user u, adding it (and its account) to an
// automatic tree of users' own accounts; -1 for a user the tree does not
// have (a declared tree's, or, in a tree of groups, one not met yet).
func (t *fsTree) user(u int32) int {
	if k, ok := t.users[u]; ok {
		return k
	}
	if !t.auto || t.groups {
		return -1
	}
	name := strconv.Itoa(int(u))
	a := t.add(fsNode{name: "u" + name, shares: 1, parent: 0})
	k := t.add(fsNode{name: name, user: u, isUser: true, shares: 1, parent: a, fs: 1})
	t.users[u] = k
	t.nUsers++
	t.levels()
	return k
}

// add appends node n under its parent, without usage, and returns its
// index. The other nodes' factors stay those of the last calculation,
// and the new node's are its own until the next: an incremental classic
// tree computes the others' first, since the new node changes their
// level shares.
func (t *fsTree) add(n fsNode) int {
	t.settle()
	n.at = t.epoch
	k := len(t.nodes)
	t.nodes = append(t.nodes, n)
	t.nodes[n.parent].kids = append(t.nodes[n.parent].kids, k)
	t.stored = append(t.stored, 0)
	return k
}

// normShares is node k's normalized shares, its target share of the
// machine (sshare's NormShares, the classic algorithm's S): the product
// along its path of shares over level shares, as calcClassic computes it,
// whichever algorithm runs. With the automatic tree it is over the users
// met so far.
func (t *fsTree) normShares(k int) float64 {
	if k == 0 {
		return 1
	}
	n := &t.nodes[k]
	if n.useParent {
		return t.normShares(n.fsParent)
	}
	if n.levelShares == 0 {
		return 0
	}
	up := n.parent
	if t.nodes[up].useParent {
		up = n.fsParent
	}
	return t.normShares(up) * (float64(n.shares) / float64(n.levelShares))
}

// charge adds x processor-seconds to user node k.
func (t *fsTree) charge(k int, x float64) {
	t.stored[k] += x / t.scale
}

// decay multiplies every usage by d.
func (t *fsTree) decay(d float64) {
	t.scale *= d
	if t.scale < 1e-200 {
		for i := range t.stored {
			t.stored[i] *= t.scale
		}
		t.scale = 1
	}
}

// reset sets every usage to 0 (PriorityUsageResetPeriod).
func (t *fsTree) reset() {
	clear(t.stored)
	t.scale = 1
}

// calc computes every user's fair-share factor from the usage now.
func (t *fsTree) calc() {
	t.sum()
	t.epoch++
	switch {
	case t.fairTree:
		t.calcFairTree()
	case t.incremental:
		// The factors are computed when read (factor).
		t.nodes[0].sharesNorm, t.nodes[0].efctv, t.nodes[0].at = 1, 1, t.epoch
	default:
		t.calcClassic()
	}
}

// sum sets every node's usage.
func (t *fsTree) sum() {
	// Kids come after their parent: walking back from the last node,
	// every account's kids are summed before it, each in the order of
	// its kids (the order of the sum is the result's).
	for i := len(t.nodes) - 1; i >= 0; i-- {
		n := &t.nodes[i]
		if n.isUser {
			n.usage = t.stored[i] * t.scale
			continue
		}
		u := 0.0
		for _, c := range n.kids {
			u += t.nodes[c].usage
		}
		n.usage = u
	}
}

// calcClassic is the classic algorithm (classic_fair_share.shtml;
// _set_usage_efctv and _set_assoc_fs_factor in priority_multifactor.c):
// normalized shares S are the product along the path of shares / level
// shares; normalized usage UN = usage / root usage (0 when the root has
// none, at most 1); the effective usage UE of a child of the root is its
// UN, and below UE = UN + (UE_parent - UN) x shares / level shares; a
// user's factor is 2^(-(UE/S)/damp).
//
// A node with FairShare=parent takes its fs parent's S and UE
// (_normalize_assoc_shares_traditional, _set_assoc_usage_efctv); the
// shares of its direct ancestors with FairShare=parent are skipped in S.
func (t *fsTree) calcClassic() {
	t.nodes[0].sharesNorm, t.nodes[0].efctv = 1, 1
	for k := 1; k < len(t.nodes); k++ { // parents come before their kids
		t.classicNode(k)
	}
}

// classicNode computes node k's classic S, UE and factor from its
// ancestors'.
func (t *fsTree) classicNode(k int) {
	root := t.nodes[0].usage
	n := &t.nodes[k]
	f := &t.nodes[n.fsParent]
	un := 0.0
	if root > 0 {
		un = min(n.usage/root, 1)
	}
	switch {
	case n.useParent:
		n.sharesNorm, n.efctv = f.sharesNorm, f.efctv
	default:
		// The product along the direct path, FairShare=parent
		// ancestors skipped.
		n.sharesNorm = t.nodes[n.parent].sharesNorm
		if t.nodes[n.parent].useParent {
			n.sharesNorm = f.sharesNorm
		}
		if n.levelShares == 0 {
			n.sharesNorm = 0
		} else {
			n.sharesNorm *= float64(n.shares) / float64(n.levelShares)
		}
		switch {
		case n.fsParent == 0:
			n.efctv = un
		case n.levelShares == 0:
			n.efctv = f.efctv
		default:
			n.efctv = un + (f.efctv-un)*(float64(n.shares)/float64(n.levelShares))
		}
	}
	if n.isUser {
		if n.sharesNorm <= 0 {
			n.fs = 0
		} else {
			n.fs = math.Pow(2, -(n.efctv/n.sharesNorm)/t.damp)
		}
	}
}

// calcFairTree is the Fair Tree algorithm (fair_tree.shtml; fair_tree.c):
// each node's level fair share is LF = S / U, S its shares over its level
// shares, U its usage over its parent's (0 when the parent has none; LF =
// +Inf when U = 0). Siblings are sorted by LF, highest first, users before
// accounts on a tie, and walked depth first: the users get ranks from the
// number of users down, in the order they are met, and a user's factor is
// its rank over the number of users. Sibling users of equal LF share a
// rank; a user of the LF of a sibling account shares the rank of that
// account's first user; sibling accounts of equal LF have their children
// merged (sorted together) before the walk descends, as the documentation
// says.
func (t *fsTree) calcFairTree() {
	if t.nUsers == 0 {
		return
	}
	rank, rnt := t.nUsers, t.nUsers
	if t.incremental {
		t.arena = t.arena[:0]
		t.fairTreeLevel(t.nodes[0].order, &rank, &rnt, false)
		return
	}
	t.arena = append(t.arena[:0], t.nodes[0].fsKids...)
	t.fairTreeLevel(t.arena, &rank, &rnt, false)
}

func (t *fsTree) fairTreeLevel(sibs []int, rank, rnt *int, accountTied bool) {
	for _, k := range sibs {
		n := &t.nodes[k]
		p := &t.nodes[n.fsParent]
		u := 0.0
		if p.usage > 0 {
			u = n.usage / p.usage
		}
		s := 0.0
		if n.levelShares > 0 {
			s = float64(n.shares) / float64(n.levelShares)
		}
		switch {
		case n.useParent && n.isUser:
			// _calc_assoc_fs: first in its account, subject to ties.
			n.levelFS = math.Inf(1)
		case n.useParent:
			// An account with FairShare=parent has no LF of its own
			// (Slurm leaves NO_VAL there); its kids are its fs
			// parent's, so it has none to walk.
			n.levelFS = noVal
		case s == 0:
			n.levelFS = 0
		default:
			n.levelFS = s / u // +Inf when u = 0
		}
	}
	// Equal keys (the same LF, both users or both accounts) rank alike
	// whatever their order: tied users share a rank and tied accounts
	// are merged.
	if t.incremental {
		t.sortLevel(sibs)
	} else {
		slices.SortFunc(sibs, t.fairTreeCmp)
	}
	prev := math.NaN()
	for i := 0; i < len(sibs); i++ {
		n := &t.nodes[sibs[i]]
		tied := (i == 0 && accountTied) || (i > 0 && prev == n.levelFS)
		if n.isUser {
			if !tied {
				*rank = *rnt
			}
			n.fs = float64(*rank) / float64(t.nUsers)
			*rnt--
		} else {
			j := i
			for j+1 < len(sibs) && !t.nodes[sibs[j+1]].isUser && t.nodes[sibs[j+1]].levelFS == n.levelFS {
				j++
			}
			if t.incremental && j == i {
				// An account alone: its children sorted in its order.
				t.fairTreeLevel(n.order, rank, rnt, tied)
				prev = n.levelFS
				continue
			}
			// The merged children go at the end of the arena; sibs may be
			// an older copy of it if append moves it, which stays valid.
			k := len(t.arena)
			for _, a := range sibs[i : j+1] {
				t.arena = append(t.arena, t.nodes[a].fsKids...)
			}
			t.fairTreeLevel(t.arena[k:len(t.arena):len(t.arena)], rank, rnt, tied)
			i = j
		}
		prev = n.levelFS
	}
}

// fairTreeCmp orders Fair Tree's siblings a and b: higher LF first, users
// before accounts on a tie.
func (t *fsTree) fairTreeCmp(a, b int) int {
	na, nb := &t.nodes[a], &t.nodes[b]
	if na.levelFS != nb.levelFS {
		if na.levelFS > nb.levelFS {
			return -1
		}
		return 1
	}
	if na.isUser != nb.isUser {
		if na.isUser {
			return -1
		}
		return 1
	}
	return 0
}
