# One Peggle episode with random aims. Run from the repository's root: python3 python/example.py
import gymnasium as gym
import peggle_gym  # registers "peggle_gym/Peggle-v0"; the peggle binary: PEGGLE_BIN, PATH or .build/release

env = gym.make("peggle_gym/Peggle-v0", level="Levels/first-steps.json", render_mode="ansi")
obs, info = env.reset(seed=0)  # obs: float32 vector in [-1, 1]; info: score, balls_left, orange_left...
terminated = truncated = False
while not (terminated or truncated):  # one step is one shot, aimed by a float in [-1, 1]
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
print(env.render() + f"{info['status']}: score {info['score']} in {info['shots']} shots"); env.close()
