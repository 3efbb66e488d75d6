package slurm

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestTaskList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{1}, "1"}, {[]int{1, 2, 3}, "1-3"}, {[]int{3, 1, 2, 5}, "1-3,5"}, {[]int{2, 4, 6, 7}, "2,4,6-7"},
	} {
		if got := TaskList(c.in); got != c.want {
			t.Errorf("TaskList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseJobID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"123\n", 123, true}, {"456;cluster2\n", 456, true}, {"Submitted batch job 7", 0, false}, {"", 0, false},
	} {
		got, err := parseJobID(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("parseJobID(%q) = %d, %v", c.in, got, err)
		}
	}
}

func TestExpandTasks(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"2-4", []int{2, 3, 4}}, {"1,3", []int{1, 3}}, {"1-3%2", []int{1, 2, 3}}, {"[2-3]", []int{2, 3}}, {"", nil}, {"x", nil},
	} {
		if got := expandTasks(c.in); !slices.Equal(got, c.want) {
			t.Errorf("expandTasks(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestScripts checks the batch scripts: the options asked for, the task
// running its shard with the folder's schedlab, the merge job, quoting of
// a folder with a space and a quote, and that bash reads both.
func TestScripts(t *testing.T) {
	dir := "/shared/my camp'aign"
	array, merge := Scripts(dir, "paper 004", Resources{Partition: "short", Time: "2:00:00", Mem: "4G", CPUsPerTask: 4,
		Args: []string{"--account=proj"}})
	for _, want := range []string{
		"#SBATCH --job-name=schedlab-paper_004\n", "#SBATCH --partition=short\n", "#SBATCH --time=2:00:00\n",
		"#SBATCH --mem=4G\n", "#SBATCH --cpus-per-task=4\n", "#SBATCH --account=proj\n",
		"#SBATCH --output=/shared/my camp'aign/slurm/logs/task-%A_%a.log\n",
		`exec '/shared/my camp'\''aign/slurm/schedlab' slurm task '/shared/my camp'\''aign'` + "\n",
	} {
		if !strings.Contains(array, want) {
			t.Errorf("array script lacks %q:\n%s", want, array)
		}
	}
	for _, want := range []string{"#SBATCH --cpus-per-task=1\n", "#SBATCH --account=proj\n", "slurm merge '/shared/my camp'\\''aign'\n"} {
		if !strings.Contains(merge, want) {
			t.Errorf("merge script lacks %q:\n%s", want, merge)
		}
	}
	if strings.Contains(merge, "--mem") {
		t.Errorf("the merge job asks the tasks' memory:\n%s", merge)
	}
	for _, s := range []string{array, merge} {
		if !strings.HasPrefix(s, "#!/bin/bash\n") {
			t.Errorf("no shebang:\n%s", s)
		}
		if out, err := exec.Command("bash", "-n", "-c", s).CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v %s\n%s", err, out, s)
		}
	}
}
