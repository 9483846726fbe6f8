// Package same compares DAG values deeply, as reflect.DeepEqual does but
// faster, for the memo's parts (translate's HTTPProxy records and
// translate/envoy's reused messages), which both ask whether what a
// message was built from has changed.
package same
