import { realmImageUrl, realmSetting } from '../../model/realm-settings.js';
import { operation } from '../../api-kit/operation.js';
import { fetchApiKey } from './fetch-api-key.js';
import { pushRegistration } from '../../model/push-registration.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../../lib/version.js';

/** GET /server_settings: no authentication; what a client needs to show a login prompt. */
const settings = operation({
  auth: 'none',
  handler: ({ shard, realm }) => {
    const url = shard.realmUrl(realm.realm);
    return {
      authentication_methods: {
        password: true, dev: false, email: true, ldap: false, remoteuser: false,
        github: false, azuread: false, gitlab: false, apple: false, google: false, saml: false,
      },
      external_authentication_methods: [],
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      // Registered with the push notification service (`stoa push register`, api/notify/push/).
      push_notifications_enabled: pushRegistration(shard) !== null,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_uri: url,
      realm_url: url,
      realm_name: realm.realm.name,
      realm_icon: realmImageUrl(realm, 'icon', url),
      realm_description: realm.realm.description,
      realm_web_public_access_enabled: realmSetting(realm, 'enable_spectator_access') === true,
    };
  },
});

export const operations = {
  'server.settings': settings,
  'server.fetchApiKey': fetchApiKey,
};
