package campaign

import "testing"

func TestExecutorFromEnv(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want Executor
	}{
		{"local", nil, Executor{Name: ExecutorLocal, SlurmArrayTaskID: -1}},
		{"a job", map[string]string{"SLURM_JOB_ID": "41"}, Executor{Name: ExecutorSlurm, SlurmJobID: 41, SlurmArrayTaskID: -1}},
		{"an array task", map[string]string{"SLURM_JOB_ID": "44", "SLURM_ARRAY_JOB_ID": "42", "SLURM_ARRAY_TASK_ID": "2"},
			Executor{Name: ExecutorSlurm, SlurmJobID: 42, SlurmArrayTaskID: 2}},
		{"garbage", map[string]string{"SLURM_JOB_ID": "x"}, Executor{Name: ExecutorLocal, SlurmArrayTaskID: -1}},
	} {
		got := ExecutorFromEnv(func(k string) string { return c.env[k] })
		got.Host = ""
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
