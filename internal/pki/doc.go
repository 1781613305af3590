// Package pki gives a kubesim cluster its TLS material and credentials.
//
// Load creates, in a directory (by default <data-dir>/pki), what kubeadm
// would put in /etc/kubernetes/pki for a one-machine cluster:
//
//	ca.crt, ca.key                 the cluster CA (CN "kubernetes")
//	apiserver.crt, apiserver.key   the API server's serving certificate
//	<user>.crt, <user>.key         client certificates, made on demand by
//	                               ClientCert (':' in the user name becomes
//	                               '-': system-node-node-1.crt)
//	tokens.csv                     bearer tokens in kube-apiserver's
//	                               --token-auth-file format
//
// Everything is made once and reused unchanged by later Loads of the same
// directory, so kubeconfigs handed out earlier keep working. Two things are
// renewed when a Load finds them stale: the serving certificate (expired,
// close to expiry, or its subject alternative names no longer match
// Config.Hosts) and a client certificate (the same time rules, or other
// groups asked for). The CA itself is never replaced: when only one of
// ca.crt and ca.key is there, when they do not parse or match, or when the
// CA has expired, Load fails and says what to do.
//
// Sharing: several API servers of one cluster load one directory
// (kubesim serve --pki-dir), so that a token or client certificate made
// for one is good on all, and a service account token one signs the
// others verify. Each keeps its serving certificate in its own
// Config.ServingDir, naming its own address. Load and every method that
// writes a file in the directory hold an flock on LockFileName
// (pki.lock) while they read and write: two processes starting at once
// never make two CAs or two service account keys (the second waits, then
// finds the first one's files), and a token added by one is reread, not
// overwritten, by the other. kubeadm copies one /etc/kubernetes/pki to
// every control-plane machine, where each kube-apiserver has its own
// serving certificate; kubesim shares the directory instead.
//
// Permissions: directories are created 0700, private keys, the token file
// and kubeconfigs are written 0600, certificates 0644. A private key or the
// token file that Load finds readable or writable by group or others, or a
// certificate writable by them, is refused with an error wrapping
// ErrInsecurePermissions, as ssh does with an unprotected key: the secret
// may have been copied, the certificate changed, so kubesim neither uses it
// silently nor tightens the mode behind the user's back. The error names
// the file and the two ways out (chmod, or remove the directory to start
// over with new credentials).
//
// Ownership: only what this user owns is trusted. A directory of another
// user is refused, and so is every file read from it (certificates, keys,
// the token file, the lock file, the etcd PKI's files) that belongs to
// another user, or a symlink standing for one that does, with an error
// wrapping ErrOtherOwner that names the file, its owner and the ways out
// (chown, or start over): whoever owns the token file decides who is
// system:masters. A file is checked again on the descriptor it is read
// from, so one swapped in after the check is not trusted either. An
// existing directory open to group or others is set to 0700 before
// anything in it is used, and Config.Logf told: from then on no one else
// can change what is in it, and anything they put there while it was open
// is theirs, so refused. A directory with the sticky bit (as /tmp) is
// meant to be shared and is refused instead; so is, by LoadEtcdPKI, which
// changes nothing, an etcd PKI directory group or others may write.
//
// Identities are those of a real cluster: Admin (group system:masters),
// Scheduler (system:kube-scheduler), Node(name) (system:node:<name>, group
// system:nodes) and Student, a user with no groups at all, who gets only
// what RBAC grants by name.
//
// The package only makes and stores credentials. Checking them on requests
// is the API server's job: ServingTLSConfig asks for, but does not require,
// a client certificate, and the token file is meant for the API server's
// token authenticator (ParseTokenFile reads it).
package pki
