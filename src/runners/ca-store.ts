/** The machine's CA store on Debian (the sandbox sees /etc/ssl read-only), for installers that trust only their own bundle. */
export const DEBIAN_CA_STORE = "/etc/ssl/certs/ca-certificates.crt";
