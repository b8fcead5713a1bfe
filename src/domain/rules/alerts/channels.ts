/** @module The channels a notification can go out on (rules name them, contact points hold them). */
export const NOTIFICATION_CHANNELS = ['email', 'slack', 'webhook'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];
