#!/usr/bin/env bash
# One night on a Kubernetes cluster: tonight's seed into the shard Job, the Jobs of last night
# deleted (a Job that completed does not run again), the shards run (deploy/k8s/nightly.yaml),
# then the merge (nightly-merge.yaml); exits with the merge's status (0 clean, 1 a new signature,
# 5 a shard missing). Results stay on the shapefuzz-nightly volume: /results/nightly holds
# report.html and the reproducers, /results/junit the JUnit files.
#   usage: deploy/k8s/run-nightly.sh [SEED]   (default: seconds since the epoch)
set -euo pipefail
cd "$(dirname "$0")"
seed=${1:-$(date +%s)}
kubectl delete job shapefuzz-shards shapefuzz-merge --ignore-not-found
# Last night's shard directories would be merged again if a pod of tonight's never ran.
kubectl apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: shapefuzz-clean
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: clean
          image: shapefuzz:nightly
          command: ["/bin/sh", "-c", "rm -rf /results/shard-* /results/nightly /results/junit"]
          volumeMounts: [{name: results, mountPath: /results}]
      volumes: [{name: results, persistentVolumeClaim: {claimName: shapefuzz-nightly}}]
YAML
kubectl wait --for=condition=complete --timeout=10m job/shapefuzz-clean
kubectl delete job shapefuzz-clean
sed "s/value: \"1\"  # run-nightly.sh sets tonight's/value: \"$seed\"/" nightly.yaml | kubectl apply -f -
kubectl wait --for=condition=complete --timeout=3h job/shapefuzz-shards ||
  echo "run-nightly: the shard Job did not complete; merging what the shards wrote" >&2
kubectl apply -f nightly-merge.yaml
until kubectl wait --for=condition=complete --timeout=0 job/shapefuzz-merge 2>/dev/null ||
  kubectl wait --for=condition=failed --timeout=0 job/shapefuzz-merge 2>/dev/null; do
  sleep 10
done
kubectl logs job/shapefuzz-merge | tail -n 20
pod=$(kubectl get pods -l job-name=shapefuzz-merge -o jsonpath='{.items[0].metadata.name}')
exit "$(kubectl get pod "$pod" -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}')"
