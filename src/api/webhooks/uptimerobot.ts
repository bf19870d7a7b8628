import { orMisconfigured, registerIntegration, str, unsupportedEvent, type WebhookRequest } from './registry.js';

/**
 * UptimeRobot (zerver/webhooks/uptimerobot): a monitor going up or down, in the monitor's
 * topic. A payload missing a field tells the bot's owner, as Zabbix's does.
 */
function handle({ payload: p, bot, support }: WebhookRequest) {
  const type = str(p, 'alert_type_friendly_name');
  const notice = `Hi there! Your bot ${bot.fullName} just received a UptimeRobot payload that is missing
some data that Zulip requires. This usually indicates a configuration issue
in your UptimeRobot webhook settings. Please make sure that you set the required parameters
when configuring the UptimeRobot webhook. Contact ${support} if you
need further help!`;
  // Where 10.2 failed (an unset variable), the newer reference answers this.
  if (type !== 'Up' && type !== 'Down') throw unsupportedEvent('UptimeRobot', type);
  const [body, topic] = orMisconfigured(notice, () => {
    const head = `${str(p, 'monitor_friendly_name')} (${str(p, 'monitor_url')})`;
    const text = type === 'Up' ? `${head} is back UP (${str(p, 'alert_details')}).\nIt was down for ${str(p, 'alert_friendly_duration')}.` : `${head} is DOWN (${str(p, 'alert_details')}).`;
    return [text, str(p, 'monitor_friendly_name')];
  });
  return [{ topic, body, eventType: type === 'Up' ? 'up' : 'down' }];
}

registerIntegration({ name: 'uptimerobot', displayName: 'UptimeRobot', webhookName: 'UptimeRobot', allEventTypes: ['up', 'down'], payload: 'body', handle });
