import { orMisconfigured, registerIntegration, str, type WebhookRequest } from './registry.js';

/**
 * Zabbix (zerver/webhooks/zabbix): an alert, in the host's topic. A payload missing a field
 * means the Zabbix script is misconfigured: the bot's owner is told, the request refused.
 */
function handle({ payload: p, bot, support }: WebhookRequest) {
  const notice = `Hi there! Your bot ${bot.fullName} just received a Zabbix payload that is missing
some data that Zulip requires. This usually indicates a configuration issue
in your Zabbix webhook settings. Please make sure that you set the
script correctly and provide all the required parameters
when configuring the Zabbix webhook. Contact ${support} if you
need further help!`;
  return orMisconfigured(notice, () => {
    const hostname = str(p, 'hostname');
    const body = `${str(p, 'status')} (${str(p, 'severity')}) alert on [${hostname}](${str(p, 'link')}):\n* ${str(p, 'trigger')}\n* ${str(p, 'item')}`;
    return [{ topic: hostname, body }];
  });
}

registerIntegration({ name: 'zabbix', displayName: 'Zabbix', webhookName: 'Zabbix', allEventTypes: null, payload: 'body', handle });
