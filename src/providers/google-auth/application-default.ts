/**
 * Credential source 4: the pod's Application Default Credentials, through Google's auth library
 * (vertex-ai.md §3.2): `GOOGLE_APPLICATION_CREDENTIALS` (a service-account or workload identity
 * federation file), gcloud's well-known file, else the GCE/GKE metadata server (Workload
 * Identity). `GCE_METADATA_HOST` moves the metadata server, as every Google library honours it.
 *
 * The project is passed to the library when the target names one: without it the library looks
 * the project up (and may spawn `gcloud`) before it hands out a client.
 */
import { CLOUD_PLATFORM_SCOPE, expiryOf, loadGoogleAuth } from './load-google-auth.js';
import type { AccessToken } from './token-cache.js';

export interface ApplicationDefaultCredentials {
  fetchToken(): Promise<AccessToken>;
  /** ADC's project (env, key file, metadata server's `project/project-id`). */
  projectId(): Promise<string>;
}

export function applicationDefaultCredentials(options: { refreshMarginMs: number; projectId?: string }): ApplicationDefaultCredentials {
  let auth: Promise<import('google-auth-library').GoogleAuth> | undefined;
  const get = () =>
    (auth ??= loadGoogleAuth().then(
      ({ GoogleAuth }) =>
        new GoogleAuth({
          scopes: [CLOUD_PLATFORM_SCOPE],
          ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
          clientOptions: { eagerRefreshThresholdMillis: options.refreshMarginMs },
        }),
      (err: unknown) => {
        auth = undefined;
        throw err;
      },
    ));
  return {
    async fetchToken() {
      const client = await (await get()).getClient();
      const { token } = await client.getAccessToken();
      if (!token) throw new Error('application default credentials gave no access token');
      return { token, expiresAt: expiryOf(client.credentials.expiry_date, Date.now()) };
    },
    async projectId() {
      return (await get()).getProjectId();
    },
  };
}
