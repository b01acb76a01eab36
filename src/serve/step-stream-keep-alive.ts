/** How often serve writes a comment to an idle step stream, so proxies keep it open and clients know it lives. */
export const KEEP_ALIVE_MS = 15_000;
